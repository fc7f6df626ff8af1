import type { Answer } from '../api/client';
import { useSession } from '../session';

type Catalogue = Answer<'/api/admin/catalogue', 'get'>;

/**
 * Permissions grouped by family, and chat pages when a chat permission is chosen. Only what the
 * member holds can be granted (the server refuses more): the rest is shown, disabled.
 */
export function PermissionPicker({
  catalogue,
  permissions,
  pageIds,
  disabled,
  onChange,
}: {
  catalogue: Catalogue;
  permissions: string[];
  pageIds: string[];
  disabled: boolean;
  onChange: (next: { permissions: string[]; pageIds: string[] }) => void;
}) {
  const { holds } = useSession();
  const toggle = <T,>(list: T[], item: T, on: boolean) => (on ? [...list, item] : list.filter((other) => other !== item));
  const needsPages = permissions.some((permission) => catalogue.chatPermissions.includes(permission));
  return (
    <div className="picker">
      {catalogue.permissionFamilies.map(({ family, permissions: inFamily }) => (
        <fieldset key={family}>
          <legend>{family}</legend>
          {inFamily.map((permission) => (
            <label key={permission} className="check" title={holds(permission) ? undefined : 'You do not hold this permission'}>
              <input
                type="checkbox"
                checked={permissions.includes(permission)}
                disabled={disabled || !holds(permission)}
                onChange={(event) => onChange({ permissions: toggle(permissions, permission, event.target.checked), pageIds })}
              />
              {permission.slice(family.length + 1)}
            </label>
          ))}
        </fieldset>
      ))}
      {needsPages && (
        <fieldset>
          <legend>Chat pages</legend>
          {catalogue.pages.length === 0 && <p className="empty">You see no chat pages (social.pages.read).</p>}
          {catalogue.pages.map((page) => (
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
