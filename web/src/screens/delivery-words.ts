import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import type { Language } from '../i18n';
import type { deliveries } from '../i18n/vi/deliveries';
import { formatDateTime } from '../i18n/format';

type FailureKey = keyof typeof deliveries.failures;

/**
 * Why an attempt got no answer, as the server words it (adapters/outbound/outbound-http.ts,
 * describeOutboundError), by its message; anything else is shown as the server wrote it.
 */
const FAILURES: [RegExp, FailureKey][] = [
  [/^the connection was refused$/, 'refused'],
  [/^the connection was reset$/, 'reset'],
  [/^the connection was closed while sending$/, 'closedWhileSending'],
  [/^the connection timed out$/, 'timedOut'],
  [/^the host is unreachable$/, 'hostUnreachable'],
  [/^the network is unreachable$/, 'networkUnreachable'],
  [/^the name does not resolve$/, 'noSuchName'],
  [/^the name could not be resolved right now$/, 'nameLater'],
  [/^no answer in time$/, 'noAnswerInTime'],
  [/^the answer did not arrive in time$/, 'answerLate'],
  [/^the connection was closed$/, 'closed'],
  [/^the destination is not allowed/, 'notAllowed'],
  [/^only https destinations are allowed$/, 'httpsOnly'],
  [/^TLS: the certificate has expired$/, 'certificateExpired'],
  [/^TLS: the certificate (chain )?is self-signed$/, 'selfSigned'],
  [/^TLS: the certificate cannot be verified$/, 'certificateUnverified'],
  [/^TLS: the certificate does not name the host$/, 'wrongHost'],
  [/^TLS: the handshake failed/, 'handshake'],
  [/^the call failed before an answer arrived$/, 'beforeAnswer'],
];

/**
 * The plain words of what flow screens show by code: event types and order states (their codes stay
 * beside them where an integrator needs them), delivery statuses, attempt failures, and times in the
 * shop's zone.
 */
export function useDeliveryWords() {
  const { t, i18n } = useTranslation('deliveries');
  const { t: tEvents } = useTranslation('events');
  const language: Language = i18n.language === 'en' ? 'en' : 'vi';
  return {
    language,
    eventType: (type: string) => tEvents(`types.${type}` as ParseKeys<'events'>, { defaultValue: type }),
    orderState: (state: string) => tEvents(`orderStates.${state}` as ParseKeys<'events'>, { defaultValue: state }),
    status: (status: string) => t(`statuses.${status}` as ParseKeys<'deliveries'>, { defaultValue: status }),
    failure: (error: string | null) => {
      const key = FAILURES.find(([words]) => words.test(error ?? ''))?.[1];
      return key ? t(`failures.${key}`) : (error ?? t('failures.beforeAnswer'));
    },
    when: (at: string) => formatDateTime(at, language),
  };
}
