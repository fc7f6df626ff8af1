import { createContext, useContext, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ProblemError, unwrap, setCsrfToken, type Answer } from './api/client';

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

/** Who is logged in (null when nobody: 401). */
function useCurrentSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/admin/session'));
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
  if (current.isPending) return <p className="loading">Loading…</p>;
  if (current.isError) return <p role="alert">{current.error.message}</p>;
  if (!current.data) return login;
  const session = current.data;
  setCsrfToken(session.csrfToken);
  const holds = (...permissions: string[]) => permissions.every((permission) => session.permissions.includes(permission));
  return <Context.Provider value={{ session, holds, logOut: () => logOut.mutate() }}>{children}</Context.Provider>;
}
