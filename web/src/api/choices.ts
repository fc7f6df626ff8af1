import { api, unwrap } from './client';

/** Event types, grantable permissions by family and the chat pages the member sees (the pickers). */
export const catalogueQuery = {
  queryKey: ['catalogue'],
  queryFn: () => unwrap(api.GET('/api/admin/catalogue')),
  staleTime: 5 * 60_000,
};
