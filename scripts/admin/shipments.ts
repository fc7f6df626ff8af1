import { loadSettings } from '../../config/settings.js';
import { withShop } from '../../domain/kernel/index.js';
import { carriers, connectCarrierInputSchema, connectCarrierWithCallbackUrl, disconnectCarrier } from '../../domain/shipments/index.js';
import { fail, integerFlag, oneOf, required, shopFlag, uuidFlag, type Command, type Env, type Flags } from './flags.js';

/** The carrier's token may come from the environment instead, so it is not in the shell's history or the process list. */
export const CARRIER_TOKEN_VARIABLE = 'CARRIER_TOKEN';

/** Carrier connections (shipments): connecting answers the callback URL to register at the carrier, once. */
export const shipmentCommands: Record<string, Command> = {
  'carrier:connect': {
    usage:
      '--shop S --carrier carrier_a|carrier_b --name N --warehouse W --base-url U [--token T] [--carrier-shop-id N] [--client-source X] ' +
      '--pick-up-name N --pick-up-phone P --pick-up-street S [--pick-up-ward W] --pick-up-district D --pick-up-province P',
    run: async (sql, f, env) => {
      const shop = await shopFlag(sql, f);
      const parsed = connectCarrierInputSchema.safeParse({
        carrier: oneOf(f, 'carrier', carriers) ?? fail('--carrier is required'),
        name: required(f, 'name'),
        warehouseId: uuidFlag(f, 'warehouse'),
        baseUrl: required(f, 'base-url'),
        credentials: credentialsFlags(f, env),
        pickUp: {
          name: required(f, 'pick-up-name'),
          phone: required(f, 'pick-up-phone'),
          street: required(f, 'pick-up-street'),
          ward: f['pick-up-ward'] ?? null,
          district: required(f, 'pick-up-district'),
          province: required(f, 'pick-up-province'),
        },
      });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      const { secretsKey, publicBaseUrl, carrierEndpoints: endpoints } = loadSettings(env);
      const { connection, callbackUrl } = await withShop(sql, shop.id, (tx) =>
        connectCarrierWithCallbackUrl(tx, shop.id, parsed.data, { secretsKey, endpoints, publicBaseUrl }),
      );
      return { connectionId: connection.id, callbackUrl };
    },
  },
  'carrier:disconnect': {
    usage: '--shop S --connection ID',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const connectionId = uuidFlag(f, 'connection');
      return { connectionId, result: await withShop(sql, shop.id, (tx) => disconnectCarrier(tx, connectionId)) };
    },
  },
};

/** A: `--token` and `--carrier-shop-id` (GHN's ShopId); B: `--token` and `--client-source` (GHTK's X-Client-Source). */
function credentialsFlags(flags: Flags, env: Env): Record<string, unknown> {
  const token = flags.token ?? env[CARRIER_TOKEN_VARIABLE] ?? fail(`--token (or ${CARRIER_TOKEN_VARIABLE} in the environment) is required`);
  if (flags.carrier === 'carrier_a')
    return { token, shopId: integerFlag('carrier-shop-id', required(flags, 'carrier-shop-id'), 1, 2 ** 31 - 1) };
  return { token, clientSource: required(flags, 'client-source') };
}
