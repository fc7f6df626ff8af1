import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ProblemError, unwrap } from '../api/client';
import { useSession } from '../session';
import { ConfirmButton, Field, Loaded, ProblemMessage, SetupPart, useFieldErrors } from '../ui';

type Link = { pageId: string; platformPageId: string; accessToken: string };

/**
 * Chat pages, and each page's link to its platform page (the page access token goes in, never out;
 * the platform must confirm it is that page's), which can be removed.
 */
export function ChatPages() {
  const { t } = useTranslation(['setup', 'problems']);
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const pages = useQuery({ queryKey: ['setup', 'pages'], queryFn: () => unwrap(api.GET('/api/admin/pages')) });
  const [name, setName] = useState('');
  const [link, setLink] = useState<Link>({ pageId: '', platformPageId: '', accessToken: '' });
  const [missing, setMissing] = useState<string[]>([]);
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['setup', 'pages'] });
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/pages', { body: { name } })),
    onSuccess: (page) => {
      setName('');
      setDone(t('added', { name: page.name }));
      return refresh();
    },
  });
  const linkPage = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/admin/pages/{id}/link', {
          params: { path: { id: link.pageId } },
          body: { platformPageId: link.platformPageId, accessToken: link.accessToken },
        }),
      ),
    onSuccess: () => {
      setDone(t('chat.linked', { name: pages.data?.data.find((page) => page.id === link.pageId)?.name ?? '' }));
      setLink({ pageId: '', platformPageId: '', accessToken: '' });
      return refresh();
    },
  });
  // Idempotent, so offered on every page: one the platform disconnected is still linked until unlinked.
  const unlink = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/admin/pages/{id}/link', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const addError = useFieldErrors(add.error);
  // The platform's refusal of the token is about the token (and the page id it was checked against).
  const tokenRefused = linkPage.error instanceof ProblemError && linkPage.error.code === 'page-not-connected';
  const linkError = useFieldErrors(linkPage.error);
  const manage = holds('settings.sales_channels');
  const check = (event: FormEvent<HTMLFormElement>, empty: string[], action: () => void) => {
    event.preventDefault();
    setMissing(empty);
    if (empty.length > 0) event.currentTarget.querySelector<HTMLElement>(`[name="${empty[0]}"]`)?.focus();
    else action();
  };
  const required = (field: string) => (missing.includes(field) ? t('problems:field.required') : undefined);
  return (
    <SetupPart title={t('chat.title')}>
      <Loaded query={{ ...pages, data: pages.data?.data }} empty={t('chat.empty')}>
        {(rows) => (
          <ul className="plain">
            {rows.map((page) => (
              <li key={page.id} className="entry">
                <span>
                  {page.name} <span className="muted">{page.platform}</span>{' '}
                  <span className={`badge ${page.connected ? 'state-on' : 'state-off'}`}>
                    {page.connected ? t('chat.connected') : t('chat.notConnected')}
                  </span>
                </span>
                {manage && (
                  <ConfirmButton
                    label={t('chat.unlinkOf', { name: page.name })}
                    question={t('chat.unlinkConfirm', { name: page.name })}
                    confirm={t('chat.unlink')}
                    onConfirm={() => unlink.mutate(page.id)}
                  >
                    {t('chat.unlink')}
                  </ConfirmButton>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ProblemMessage error={unlink.error} onRetry={() => unlink.mutate(unlink.variables!)} />
      {done && (
        <p role="status" className="saved">
          {done}
        </p>
      )}
      {manage && (
        <>
          <form
            className="inline"
            aria-label={t('chat.addForm')}
            noValidate
            onSubmit={(event) => check(event, name.trim() ? [] : ['pageName'], () => add.mutate())}
          >
            <Field label={t('chat.pageName')} error={required('pageName') ?? addError('name')}>
              {(id, describedBy, invalid) => (
                <input
                  id={id}
                  name="pageName"
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                  value={name}
                  onChange={(event) => setName(event.target.value)}
                />
              )}
            </Field>
            <button type="submit">{t('chat.addPage')}</button>
            <ProblemMessage error={add.error} onRetry={() => add.mutate()} />
          </form>
          <form
            className="grid-form"
            aria-label={t('chat.linkForm')}
            noValidate
            onSubmit={(event) =>
              check(
                event,
                (['pageId', 'platformPageId', 'accessToken'] as const).filter((field) => !link[field].trim()),
                () => linkPage.mutate(),
              )
            }
          >
            <Field label={t('chat.page')} error={required('pageId')}>
              {(id, describedBy, invalid) => (
                <select
                  id={id}
                  name="pageId"
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                  value={link.pageId}
                  onChange={(event) => setLink({ ...link, pageId: event.target.value })}
                >
                  <option value="">{t('chat.choosePage')}</option>
                  {pages.data?.data.map((page) => (
                    <option key={page.id} value={page.id}>
                      {page.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              label={t('chat.platformPageId')}
              error={required('platformPageId') ?? (linkError('platformPageId') && t('chat.platformPageIdInvalid'))}
            >
              {(id, describedBy, invalid) => (
                <input
                  id={id}
                  name="platformPageId"
                  inputMode="numeric"
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                  value={link.platformPageId}
                  onChange={(event) => setLink({ ...link, platformPageId: event.target.value })}
                />
              )}
            </Field>
            <Field
              label={t('chat.accessToken')}
              error={required('accessToken') ?? (tokenRefused ? t('chat.tokenRefused') : linkError('accessToken'))}
            >
              {(id, describedBy, invalid) => (
                <input
                  id={id}
                  name="accessToken"
                  type="password"
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                  value={link.accessToken}
                  onChange={(event) => setLink({ ...link, accessToken: event.target.value })}
                />
              )}
            </Field>
            <button type="submit">{t('chat.linkPage')}</button>
            <ProblemMessage
              error={linkPage.error}
              onRetry={() => linkPage.mutate()}
              words={(problem) => (problem.code === 'page-not-connected' ? t('problems:codes.validation-failed') : undefined)}
            />
          </form>
        </>
      )}
    </SetupPart>
  );
}
