import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { login as viLogin } from './vi/login';
import { login as enLogin } from './en/login';
import { setup as viSetup } from './vi/setup';
import { setup as enSetup } from './en/setup';
import { connections as viConnections } from './vi/connections';
import { connections as enConnections } from './en/connections';
import { permissions as viPermissions } from './vi/permissions';
import { permissions as enPermissions } from './en/permissions';
import { problems as viProblems } from './vi/problems';
import { problems as enProblems } from './en/problems';
import { ui as viUi } from './vi/ui';
import { ui as enUi } from './en/ui';
import { common as viCommon } from './vi/common';
import { common as enCommon } from './en/common';
import { flows as viFlows } from './vi/flows';
import { flows as enFlows } from './en/flows';
import { deliveries as viDeliveries } from './vi/deliveries';
import { deliveries as enDeliveries } from './en/deliveries';
import { events as viEvents } from './vi/events';
import { events as enEvents } from './en/events';
import { conditions as viConditions } from './vi/conditions';
import { conditions as enConditions } from './en/conditions';
import { recovery as viRecovery } from './vi/recovery';
import { recovery as enRecovery } from './en/recovery';
import { health as viHealth } from './vi/health';
import { health as enHealth } from './en/health';

/**
 * The admin app's languages: Vietnamese first (the shops are Vietnamese), English on choice. Each
 * screen's words are one namespace, a file per language (`vi/<namespace>.ts`, `en/<namespace>.ts`,
 * the English typed by the Vietnamese so neither misses a key); `t('…')` is type-checked against them.
 */
export const LANGUAGES = ['vi', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const resources = {
  vi: {
    common: viCommon,
    flows: viFlows,
    conditions: viConditions,
    deliveries: viDeliveries,
    recovery: viRecovery,
    events: viEvents,
    health: viHealth,
    login: viLogin,
    setup: viSetup,
    connections: viConnections,
    permissions: viPermissions,
    problems: viProblems,
    ui: viUi,
  },
  en: {
    common: enCommon,
    flows: enFlows,
    conditions: enConditions,
    deliveries: enDeliveries,
    recovery: enRecovery,
    events: enEvents,
    health: enHealth,
    login: enLogin,
    setup: enSetup,
    connections: enConnections,
    permissions: enPermissions,
    problems: enProblems,
    ui: enUi,
  },
} as const;

/** Where the person's choice is kept in this browser until the server says theirs. */
const STORED_CHOICE = 'shopflow.language';

export function storedLanguage(): Language {
  const stored = globalThis.localStorage?.getItem(STORED_CHOICE);
  return stored === 'en' ? 'en' : 'vi';
}

export async function chooseLanguage(language: Language): Promise<void> {
  globalThis.localStorage?.setItem(STORED_CHOICE, language);
  document.documentElement.lang = language;
  await i18next.changeLanguage(language);
}

void i18next.use(initReactI18next).init({
  resources,
  lng: storedLanguage(),
  fallbackLng: false,
  defaultNS: 'common',
  ns: Object.keys(resources.vi),
  interpolation: { escapeValue: false },
  // A key without words shows as itself (`flows.title`): the browser tests fail on any such text.
  returnNull: false,
});
document.documentElement.lang = storedLanguage();

export default i18next;
