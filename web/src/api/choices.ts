import { api, unwrap } from './client';

/** Event types, grantable permissions by family and the chat pages the member sees (the pickers). */
export const choicesQuery = {
  queryKey: ['choices'],
  queryFn: () => unwrap(api.GET('/api/admin/choices')),
  staleTime: 5 * 60_000,
};
