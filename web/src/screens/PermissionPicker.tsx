import { useTranslation } from 'react-i18next';
import type { Answer } from '../api/client';
import type { permissions } from '../i18n/vi/permissions';
import { useSession } from '../session';

type Choices = Answer<'/api/admin/choices', 'get'>;

/**
 * The plain name of a permission or permission family code, in the app's language (the permissions
 * namespace is keyed by the codes themselves); a code it does not know yet stays as it is.
 */
export function usePermissionName(): (code: string) => string {
  const { t, i18n } = useTranslation('permissions');
  return (code) => (i18n.exists(`permissions:${code}`) ? t(code as keyof typeof permissions) : code);
}

/** A permission as the screens show it: its plain name, and its code for the integrator reading the API documentation. */
export function PermissionName({ code }: { code: string }) {
  const name = usePermissionName();
  return (
    <span className="permission-name">
      {name(code)} <code>{code}</code>
    </span>
  );
}

/**
 * Permissions grouped by family, and chat pages when a chat permission is chosen. Only what the
 * member holds can be granted (the server refuses more): the rest is shown, disabled.
 */
export function PermissionPicker({
  choices,
  permissions,
  pageIds,
  disabled,
  onChange,
}: {
  choices: Choices;
  permissions: string[];
  pageIds: string[];
  disabled: boolean;
  onChange: (next: { permissions: string[]; pageIds: string[] }) => void;
}) {
  const { t } = useTranslation('connections');
  const { holds } = useSession();
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((other) => other !== item));
  const needsPages = permissions.some((permission) => choices.chatPermissions.includes(permission));
  return (
    <div className="picker">
      {choices.permissionFamilies.map(({ family, permissions: inFamily }) => (
        <fieldset key={family}>
          <legend>
            <PermissionName code={family} />
          </legend>
          {inFamily.map((permission) => (
            <label key={permission} className="check" title={holds(permission) ? undefined : t('picker.notHeld')}>
              <input
                type="checkbox"
                checked={permissions.includes(permission)}
                disabled={disabled || !holds(permission)}
                onChange={(event) => onChange({ permissions: toggle(permissions, permission, event.target.checked), pageIds })}
              />
              <PermissionName code={permission} />
            </label>
          ))}
        </fieldset>
      ))}
      {needsPages && (
        <fieldset>
          <legend>{t('picker.chatPages')}</legend>
          {choices.pages.length === 0 && <p className="empty">{t('picker.noPages')}</p>}
          {choices.pages.map((page) => (
            <label key={page.id} className="check">
              <input
                type="checkbox"
                checked={pageIds.includes(page.id)}
                disabled={disabled}
                onChange={(event) => onChange({ permissions, pageIds: toggle(pageIds, page.id, event.target.checked) })}
              />
              {page.name}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
