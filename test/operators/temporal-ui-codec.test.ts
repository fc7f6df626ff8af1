import { ulid } from 'ulidx';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { runMetadata } from '../../workflows/deliveries/delivery-starter.js';
import { TEST_OPERATOR_TOKEN } from '../support/api.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/temporal.js';

/**
 * The operator's view (issues 26 and 29): in the Temporal Web UI, in a real Chromium, a delivery's
 * input is ciphertext until the operator logs in at the codec endpoint and points the UI's Codec
 * Server setting at it; then the customer's name reads in plain text, and so do the outcome of its
 * failed attempt on the timeline and the run's summary (the flow's name) under User Metadata.
 */
const uiUrl = process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233';
const { temporal, receiver, shop, api } = useSuite({ api: { temporalUiUrl: uiUrl }, shop: true, receiver: true, worker: true });
const CUSTOMER = 'Phạm Thị Giải Mã';
/** The Input section holding one long base64 string: the encrypted payload, undecoded. */
const CIPHERTEXT_INPUT = /Input\s+"[A-Za-z0-9+/]{100,}={0,2}"/;
let browser: Browser;
let workflowId: string;

beforeAll(async () => {
  browser = await launchChromium();
  const url = receiver.url('codec-ui');
  const { flowId } = await shop.newFlow({ name: 'Customers to CRM', eventType: 'customer.created', url, state: 'on' });
  const eventId = `evt_${ulid()}`;
  const payload = JSON.stringify({ id: eventId, type: 'customer.created', data: { name: CUSTOMER } });
  workflowId = `delivery:${flowId}:${eventId}`;
  receiver.respondWith('codec-ui', [{ status: 503 }, { status: 200 }]);
  const input = {
    shopId: shop.shopId,
    flowId,
    eventId,
    eventType: 'customer.created',
    deliveryId: `msg_${ulid()}`,
    url,
    payload,
    retryDelaysMs: [100],
    about: { shopSlug: shop.slug, flowName: 'Customers to CRM', record: CUSTOMER },
  };
  await temporal.client.workflow.execute(deliveryWorkflow, {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, input, workflowId)],
    ...runMetadata(input),
  });
});
afterAll(async () => browser?.close());

describe('the Temporal Web UI with the codec endpoint', () => {
  it('shows ciphertext, then the plain payload once the operator logged in and set the codec endpoint', async () => {
    // One browser profile: the cookie the log-in page sets is the one the UI's requests carry.
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const history = `${uiUrl}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`;
    const shown = () => page.locator('body').innerText();
    await page.goto(history);
    // The input as stored: ciphertext (the UI shows an undecoded binary payload as its base64).
    await expect.poll(shown, { timeout: 20_000 }).toMatch(CIPHERTEXT_INPUT);
    expect(await shown()).not.toContain(CUSTOMER);
    await page.screenshot({ path: '.data/screenshots/temporal-ui-encrypted.png', fullPage: true });

    // The UI decodes nothing before the operator has logged in: the endpoint answers 401.
    await page.getByRole('button', { name: 'Configure Codec Server' }).click();
    // The browser's own endpoint: no cluster-level one is set.
    await page.getByText('Use my browser setting and ignore Cluster-level setting.').click();
    await page.getByTestId('data-encoder-endpoint-input').fill(`${api.baseUrl}/temporal-codec`);
    await page.getByText('Include cross-origin credentials').click();
    await expect.poll(() => page.locator('#pass-access-credentials').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.goto(history);
    await expect.poll(shown, { timeout: 20_000 }).toContain('Input');
    await page.waitForTimeout(2_000);
    expect(await shown()).not.toContain(CUSTOMER);
    expect(await shown()).toMatch(CIPHERTEXT_INPUT);

    const login = await context.newPage();
    await login.goto(`${api.baseUrl}/temporal-codec/login`);
    await login.getByLabel('Operator token').fill(TEST_OPERATOR_TOKEN);
    await login.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => login.getByRole('status').innerText()).toMatch(/Logged in/);
    await checkScreen(login, 'temporal-codec-login');

    await page.goto(history);
    await expect.poll(shown, { timeout: 20_000 }).toContain(CUSTOMER);
    // Every payload of the page decodes, some a moment after the input.
    await expect.poll(shown, { timeout: 20_000 }).not.toMatch(/"[A-Za-z0-9+/]{100,}={0,2}"/);
    // The failed attempt's outcome on the timeline, decoded, without expanding a row.
    await expect.poll(shown, { timeout: 20_000 }).toMatch(/→ 503 in \d+ ms; attempt 2 in 0 s/);
    await page.screenshot({ path: '.data/screenshots/temporal-ui-decoded.png', fullPage: true });
    // The run's summary (the flow's name, the event, its record), decoded, under User Metadata.
    await page.getByText('User Metadata', { exact: true }).click();
    // The UI renders each as Markdown in a frame of its own.
    const summary = () => page.frameLocator('#user-metadata-summary').locator('body').innerText();
    await expect.poll(summary, { timeout: 20_000 }).toContain(`Customers to CRM: customer.created ${CUSTOMER}`);
    await page.screenshot({ path: '.data/screenshots/temporal-ui-summary.png' });
  });
});
