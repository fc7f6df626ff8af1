import type { Named, Tx } from '../kernel/index.js';

export interface CarrierConnection extends Named {
  carrier: 'carrier_a' | 'carrier_b';
  active: boolean;
}

export async function listCarrierConnections(tx: Tx): Promise<CarrierConnection[]> {
  return [
    ...(await tx<CarrierConnection[]>`select id, carrier, name, active from carrier_connections order by lower(unaccent(name)), name, id`),
  ];
}
