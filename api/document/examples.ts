import { GRANTABLE_PERMISSIONS } from '../../domain/access/index.js';
import { envelope, EVENT_TYPES } from '../../domain/events/index.js';
import { Problem, PROBLEM_GUIDANCE, PROBLEMS, type ProblemCode } from '../../domain/kernel/index.js';
import { EVENT_EXAMPLES, EXAMPLE_SHOP } from '../../domain/flows/index.js';
import { problemBody } from '../plugins/problems.js';
import { EXAMPLE_IDS, RECORD_EXAMPLES } from './record-examples.js';
import { isNode, SCHEMA_REF, type Document, type Node } from './schema-walk.js';
import { eventSchemaName } from './webhooks.js';

/** What a client may send, one example per operation that takes a body (by operationId). */
const REQUEST_EXAMPLES: Record<string, unknown> = {
  createCustomer: {
    name: 'Nguyễn Thị Lan',
    gender: 'female',
    dateOfBirth: '1992-08-21',
    contacts: [{ kind: 'phone', value: '0912 345 678', isPrimary: true }],
  },
  updateCustomer: { name: 'Nguyễn Thị Lan Anh', dateOfBirth: '1992-08-21' },
  addCustomerAddress: {
    recipientName: 'Nguyễn Thị Lan',
    recipientPhone: '+84 987 654 321',
    addressLine: '25 Lý Thường Kiệt',
    geoSystem: 'new',
    provinceUnitId: EXAMPLE_IDS.province,
    wardUnitId: EXAMPLE_IDS.ward,
    provinceName: 'Thành phố Hà Nội',
    wardName: 'Phường Hai Bà Trưng',
  },
  createProduct: {
    code: 'AT-DEN',
    name: 'Áo thun cotton đen',
    description: 'Cotton 100%, form rộng',
    categoryIds: [EXAMPLE_IDS.category],
    variants: [
      { code: 'AT-DEN-M', price: '150000', weightGrams: '250', attributes: { Màu: 'Đen', Size: 'M' } },
      { code: 'AT-DEN-L', price: '165000', weightGrams: '270', attributes: { Màu: 'Đen', Size: 'L' } },
    ],
  },
  updateProduct: { variants: [{ id: EXAMPLE_IDS.variant, price: '135000' }] },
  createInventoryDocument: {
    kind: 'receipt',
    warehouseId: EXAMPLE_IDS.warehouse,
    note: 'Nhập hàng đợt 2 từ xưởng',
    lines: [{ variantId: EXAMPLE_IDS.variant, quantity: '20' }],
  },
  createOrder: {
    warehouseId: EXAMPLE_IDS.warehouse,
    customerId: EXAMPLE_IDS.customer,
    salesChannelId: EXAMPLE_IDS.salesChannel,
    billFullName: 'Nguyễn Văn An',
    billPhone: '0912345678',
    shippingAddress: {
      recipientName: 'Nguyễn Văn An',
      recipientPhone: '0912345678',
      addressLine: '12 Phố Huế',
      geoSystem: 'new',
      provinceUnitId: EXAMPLE_IDS.province,
      wardUnitId: EXAMPLE_IDS.ward,
    },
    lines: [{ variantId: EXAMPLE_IDS.variant, quantity: '3', unitPrice: '150000' }],
    shippingFee: '30000',
    payments: [{ methodId: EXAMPLE_IDS.paymentMethod, amount: '100000' }],
    tagIds: [EXAMPLE_IDS.tag],
    note: 'Giao giờ hành chính',
  },
  updateOrder: { shippingFee: '0', freeShipping: true },
  changeOrderStatus: { status: 'confirmed', reason: 'Đã gọi xác nhận với khách' },
  addOrderNote: { message: 'Khách hẹn giao sau 17h' },
  createShipment: { orderId: EXAMPLE_IDS.order, connectionId: EXAMPLE_IDS.connection, weightGram: 750, codAmount: '480000' },
  cancelShipment: { reason: 'Khách đổi địa chỉ nhận hàng' },
  sendMessage: { text: 'Dạ còn ạ, shop gửi anh bảng size nhé.' },
  replyToCommentPrivately: { text: 'Dạ size L còn ạ, shop nhắn riêng anh giá nhé.' },
};

/** A `nextCursor` as lists make them (opaque: a signed position). */
const EXAMPLE_CURSOR = 'eyJrIjoiMjAyNi0xMS0yMFQwODozMDowMC4wMDBaIiwiaSI6IjBiNmEzYzUyIn0.q2Vd8xR4mZs0LpT7wYc1Nf';

/** A list's answer: its row's example as the one row, and a next page. */
function listExample(schema: unknown): unknown {
  if (!isNode(schema) || !isNode(schema.properties)) return undefined;
  const { data, nextCursor } = schema.properties;
  const row =
    isNode(data) && isNode(data.items) && typeof data.items.$ref === 'string' ? data.items.$ref.slice(SCHEMA_REF.length) : undefined;
  if (row === undefined || RECORD_EXAMPLES[row] === undefined) return undefined;
  return { data: [RECORD_EXAMPLES[row]], ...(nextCursor ? { nextCursor: EXAMPLE_CURSOR } : {}) };
}

/** Each event's envelope exactly as `envelope()` makes it, for an account that may read every field. */
function eventExamples(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type, index) => {
      const event = { ...EVENT_EXAMPLES[type], type, id: `evt_01JDAQ4M7Z3R8K2N5P6W9X0Y${String(index).padStart(2, '0')}` };
      return [eventSchemaName(type), JSON.parse(envelope(event, EXAMPLE_SHOP, GRANTABLE_PERMISSIONS))];
    }),
  );
}

/** Where the examples' problem `type` lives: a fixed address, so the document (and types made from it) is the same on every installation. */
const EXAMPLE_BASE_URL = 'https://shopflow.example';

/** A problem body of `code` as the API sends it, its detail what the code means (a field error for validation-failed). */
function problemExample(code: ProblemCode) {
  const problem =
    code === 'validation-failed'
      ? new Problem(code, 'lines.0.quantity: must be greater than 0', {
          errors: [{ path: 'lines.0.quantity', message: 'must be greater than 0' }],
        })
      : new Problem(code, PROBLEM_GUIDANCE[code].meaning);
  return problemBody(problem, EXAMPLE_BASE_URL);
}

/** An error response's example: the first code it carries (its description lists them). */
function errorExample(status: string, response: Node): unknown {
  const code = String(response.description).split(', ')[0]!;
  return Number(status) >= 400 && Object.hasOwn(PROBLEMS, code) ? problemExample(code as ProblemCode) : undefined;
}

/** The document with its examples: each component's record, each request body's, each list's page, and each error's problem. */
export function withExamples(document: Document): Document {
  const records: Record<string, unknown> = { ...RECORD_EXAMPLES, ...eventExamples(), Problem: problemExample('validation-failed') };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}))
    if (records[name] !== undefined) schema.examples = [records[name]];
  for (const operations of Object.values(document.paths ?? {}))
    for (const operation of Object.values(operations)) {
      const body = isNode(operation.requestBody) && isNode(operation.requestBody.content) ? operation.requestBody.content : {};
      const example = REQUEST_EXAMPLES[String(operation.operationId)];
      if (isNode(body['application/json']) && example !== undefined) body['application/json'].example = example;
      for (const [status, response] of Object.entries(isNode(operation.responses) ? operation.responses : {})) {
        const media = isNode(response) && isNode(response.content) ? Object.values(response.content)[0] : undefined;
        const answer = isNode(media) ? (status === '200' ? listExample(media.schema) : errorExample(status, response as Node)) : undefined;
        if (isNode(media) && answer !== undefined) media.example = answer;
      }
    }
  return document;
}
