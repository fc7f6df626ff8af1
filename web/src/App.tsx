import { SessionGate, useSession } from './session';
import { useRoute } from './router';
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
  const [screen = 'flows', id, sub] = useRoute();
  const mayFlows = holds('automation.flows.view') || holds('automation.flows.manage');
  const links = [
    { path: 'flows', label: 'Flows', shown: mayFlows },
    { path: 'connections', label: 'API connections', shown: holds('automation.connections.manage') },
    { path: 'setup', label: 'Shop set-up', shown: true },
  ].filter((link) => link.shown);
  return (
    <div className="shell">
      <header className="top">
        <span className="brand">Shopflow · {session.shop.slug}</span>
        <nav aria-label="Main">
          {links.map((link) => (
            <a key={link.path} href={`#/${link.path}`} aria-current={screen === link.path ? 'page' : undefined}>
              {link.label}
            </a>
          ))}
        </nav>
        <span className="who">
          {session.user.name}{' '}
          <button type="button" className="link" onClick={logOut}>
            Log out
          </button>
        </span>
      </header>
      <main>{screenFor(screen, id, sub, mayFlows)}</main>
    </div>
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
