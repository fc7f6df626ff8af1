import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { Field, Loaded, ProblemMessage, SetupPart } from '../ui';

/**
 * Chat pages, and each page's link to its platform page (the page access token goes in, never out;
 * the platform must confirm it is that page's), which can be removed.
 */
export function ChatPages() {
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const pages = useQuery({ queryKey: ['setup', 'pages'], queryFn: () => unwrap(api.GET('/api/admin/pages')) });
  const [name, setName] = useState('');
  const [link, setLink] = useState({ pageId: '', platformPageId: '', accessToken: '' });
  const done = () => queryClient.invalidateQueries({ queryKey: ['setup', 'pages'] });
  const add = useMutation({ mutationFn: () => unwrap(api.POST('/api/admin/pages', { body: { name } })), onSuccess: done });
  const linkPage = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/admin/pages/{id}/link', {
          params: { path: { id: link.pageId } },
          body: { platformPageId: link.platformPageId, accessToken: link.accessToken },
        }),
      ),
    onSuccess: () => {
      setLink({ pageId: '', platformPageId: '', accessToken: '' });
      void done();
    },
  });
  // Idempotent, so offered on every page: one the platform disconnected is still linked until unlinked.
  const unlink = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/admin/pages/{id}/link', { params: { path: { id } } })),
    onSuccess: done,
  });
  const manage = holds('settings.sales_channels');
  const submit = (action: () => void) => (event: FormEvent) => {
    event.preventDefault();
    action();
  };
  return (
    <SetupPart title="Chat pages">
      <Loaded query={{ ...pages, data: pages.data?.data }} empty="No chat pages yet.">
        {(rows) => (
          <ul className="plain">
            {rows.map((page) => (
              <li key={page.id}>
                {page.name} <span className="muted">{page.platform}</span>{' '}
                <span className={`badge ${page.connected ? 'state-on' : 'state-off'}`}>
                  {page.connected ? 'connected' : 'not connected'}
                </span>{' '}
                {manage && (
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Unlink ${page.name}`}
                    onClick={() =>
                      window.confirm(`Unlink ${page.name} from its platform page? Its messages stop arriving until it is linked again.`) &&
                      unlink.mutate(page.id)
                    }
                  >
                    Unlink
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ProblemMessage error={unlink.error} />
      {manage && (
        <>
          <form className="inline" aria-label="Add a chat page" onSubmit={submit(() => add.mutate())}>
            <Field label="Page name">
              {(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}
            </Field>
            <button type="submit">Add page</button>
            <ProblemMessage error={add.error} />
          </form>
          <form className="grid-form" aria-label="Link a page to its platform page" onSubmit={submit(() => linkPage.mutate())}>
            <Field label="Page">
              {(id) => (
                <select id={id} required value={link.pageId} onChange={(event) => setLink({ ...link, pageId: event.target.value })}>
                  <option value="">Choose a page</option>
                  {pages.data?.data.map((page) => (
                    <option key={page.id} value={page.id}>
                      {page.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Platform page id">
              {(id) => (
                <input
                  id={id}
                  required
                  inputMode="numeric"
                  pattern="\d+"
                  value={link.platformPageId}
                  onChange={(event) => setLink({ ...link, platformPageId: event.target.value })}
                />
              )}
            </Field>
            <Field label="Page access token">
              {(id) => (
                <input
                  id={id}
                  required
                  type="password"
                  value={link.accessToken}
                  onChange={(event) => setLink({ ...link, accessToken: event.target.value })}
                />
              )}
            </Field>
            <button type="submit">Link page</button>
            <ProblemMessage error={linkPage.error} />
          </form>
        </>
      )}
    </SetupPart>
  );
}
