import type { Messages } from '../messages';
import type { problems as vi } from '../vi/problems';

export const problems: Messages<typeof vi> = {
  codes: {
    'validation-failed': 'Something is not right: see the marked fields.',
    conflict: 'This clashes with what is already there.',
    'limit-reached': 'The shop already has as many of these as it may.',
    'not-found': 'This is no longer there: someone may have just removed it. Reload the page.',
    'insufficient-permission': 'You are not allowed to do this.',
    'not-logged-in': 'Your session has ended. Log in again.',
    'invalid-credentials': 'The shop, e-mail or password is wrong.',
    'csrf-token-invalid': 'Your session is no longer valid. Reload the page.',
    'rate-limited': 'Too many actions at once. Wait a moment, then retry.',
    'internal-error': 'The server ran into an error. Retry in a few minutes.',
    other: 'The server refused the request.',
  },
  network: 'The server cannot be reached. Check the connection, then press Retry.',
  technicalDetails: 'Technical details',
  inUse: {
    orders: 'Cannot be removed: {{count}} orders use it.',
    'stock-rows': 'Cannot be removed: the warehouse still holds stock ({{count}} items).',
    'open-stock-documents': 'Cannot be removed: {{count}} stock documents are not finished.',
    'carrier-connections': 'Cannot be removed: {{count}} carrier connections pick up there. Disconnect them first.',
    other: 'Cannot be removed: it is in use.',
  },
  field: {
    required: 'Fill this in.',
    taken: 'This name is taken. Choose another.',
    tooLong: 'This is too long.',
    invalid: 'This value is not valid.',
  },
};
