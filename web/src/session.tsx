import { createContext, useContext, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ProblemError, unwrap, setCsrfToken, type Answer } from './api/client';
import { chooseLanguage } from './i18n';
import { ProblemMessage } from './ui';

type SessionAnswer = Answer<'/api/admin/session', 'get'>;

interface SessionContext {
  session: SessionAnswer;
  /** Whether the member holds every one of `permissions`. */
  holds: (...permissions: string[]) => boolean;
  logOut: () => void;
}

const Context = createContext<SessionContext | null>(null);

export function useSession(): SessionContext {
  const context = useContext(Context);
  if (!context) throw new Error('useSession outside <SessionGate>');
  return context;
}

/**
 * A session as the server answers it, once the app speaks the person's language: their account's
 * choice wins over this browser's; with none yet, the language the login screen showed stays.
 */
export async function adoptSession(session: SessionAnswer): Promise<SessionAnswer> {
  if (session.user.language) await chooseLanguage(session.user.language);
  return session;
}

/** Who is logged in (null when nobody: 401). */
function useCurrentSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        return await adoptSession(await unwrap(api.GET('/api/admin/session')));
      } catch (error) {
        if (error instanceof ProblemError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Infinity,
  });
}

/** The app once logged in; the login form (`login`) otherwise. */
export function SessionGate({ login, children }: { login: ReactNode; children: ReactNode }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const current = useCurrentSession();
  const logOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/session/logout')),
    onSettled: () => {
      setCsrfToken(null);
      queryClient.clear();
      queryClient.setQueryData(['session'], null);
    },
  });
  if (current.isPending) return <p className="loading">{t('loading')}</p>;
  if (current.isError)
    return (
      <main>
        <ProblemMessage error={current.error} onRetry={() => void current.refetch()} />
      </main>
    );
  if (!current.data) return login;
  const session = current.data;
  setCsrfToken(session.csrfToken);
  const holds = (...permissions: string[]) => permissions.every((permission) => session.permissions.includes(permission));
  return <Context.Provider value={{ session, holds, logOut: () => logOut.mutate() }}>{children}</Context.Provider>;
}
