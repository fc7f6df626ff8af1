import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './api/client';
import { SessionGate, useSession } from './session';
import { chooseLanguage, type Language } from './i18n';
import { useRoute } from './router';
import { LanguageSelect, ProblemMessage } from './ui';
import { LoginScreen } from './screens/LoginScreen';
import { FlowsScreen } from './screens/FlowsScreen';
import { FlowBuilder } from './screens/FlowBuilder';
import { DeliveryHistory } from './screens/DeliveryHistory';
import { ConnectionsScreen } from './screens/ConnectionsScreen';
import { SetupScreen } from './screens/SetupScreen';

export function App() {
  return (
    <SessionGate login={<LoginScreen />}>
      <Shell />
    </SessionGate>
  );
}

/** The screens a member may open, by permission; each screen checks again what it offers. */
function Shell() {
  const { session, holds, logOut } = useSession();
  const { t } = useTranslation();
  const [screen = 'flows', id, sub] = useRoute();
  const mayFlows = holds('automation.flows.view') || holds('automation.flows.manage');
  const links = [
    { path: 'flows', label: t('nav.flows'), shown: mayFlows },
    { path: 'connections', label: t('nav.connections'), shown: holds('automation.connections.manage') },
    { path: 'setup', label: t('nav.setup'), shown: true },
  ].filter((link) => link.shown);
  return (
    <div className="shell">
      <header className="top">
        <span className="brand">
          {t('appName')} · {session.shop.name}
        </span>
        <nav aria-label={t('nav.main')}>
          {links.map((link) => (
            <a key={link.path} href={`#/${link.path}`} aria-current={screen === link.path ? 'page' : undefined}>
              {link.label}
            </a>
          ))}
        </nav>
        <div className="who">
          {session.user.name} <LanguageChoice />{' '}
          <button type="button" className="link" onClick={logOut}>
            {t('logOut')}
          </button>
        </div>
      </header>
      <main>{screenFor(screen, id, sub, mayFlows)}</main>
    </div>
  );
}

/** The person's language: shown at once, and kept on their account so it follows them to any browser. */
function LanguageChoice() {
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (language: Language) => unwrap(api.PATCH('/api/admin/session', { body: { language } })),
    onSuccess: (session) => queryClient.setQueryData(['session'], session),
  });
  const choose = (language: Language) => {
    void chooseLanguage(language);
    save.mutate(language);
  };
  return (
    <>
      <LanguageSelect onChoose={choose} />
      <ProblemMessage error={save.error} onRetry={() => save.mutate(save.variables!)} />
    </>
  );
}

function screenFor(screen: string, id: string | undefined, sub: string | undefined, mayFlows: boolean) {
  if (screen === 'connections') return <ConnectionsScreen />;
  if (screen === 'setup') return <SetupScreen />;
  if (!mayFlows) return <SetupScreen />;
  if (id && sub === 'history') return <DeliveryHistory flowId={id} />;
  if (id) return <FlowBuilder key={id} flowId={id === 'new' ? null : id} />;
  return <FlowsScreen />;
}
