import { createShopflowClient, isProblem } from '@shopflow/client';
import { nodeWebhookHandler } from '@shopflow/client/node';

/**
 * An integrator's program on the packed `@shopflow/client` (test/kit/client-package.test.ts compiles
 * it in an empty project under `strict`, then runs it against the API): `data` is used without a
 * check, as a refusal throws; it prints what it read as JSON.
 */
const shopflow = createShopflowClient({ baseUrl: process.env.SHOPFLOW_URL!, apiKey: process.env.SHOPFLOW_API_KEY! });
const { data: shop } = await shopflow.api.GET('/shop');
const { data: customer } = await shopflow.api.POST('/customers', { body: { name: 'Trần Thị Bình' } });
const codes: string[] = [];
for await (const order of shopflow.paginate('/orders', { query: { limit: 2 } })) codes.push(order.code);
let refusal = '';
try {
  await shopflow.api.GET('/orders/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
} catch (error) {
  if (!isProblem(error, 'not-found')) throw error;
  refusal = `${error.status} ${error.code}`;
}
// Compiled, not called: a receiver whose events are typed by `type`, and test events told apart.
const handler = nodeWebhookHandler({
  secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  onEvent: (event) => {
    if (!event.test && event.type === 'order.created') codes.push(event.data.code);
  },
});
console.log(JSON.stringify({ shop: shop.name, customer: customer.name, codes, refusal, handler: typeof handler }));
