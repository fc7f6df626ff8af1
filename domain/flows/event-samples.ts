import type { z } from 'zod';
import type { CustomerDetail } from '../customers/index.js';
import type { ChatMessage } from '../chat/index.js';
import type { EventType, StoredEvent } from '../events/index.js';
import type { listStock } from '../inventory/index.js';
import type { OrderDetail } from '../orders/index.js';
import type { ProductDetail } from '../catalog/index.js';
import type { ShipmentDetail } from '../shipments/index.js';

/**
 * One example event of each type of the catalogue, in one made-up shop: what the developer site's
 * webhooks page and the public document show, and the made-up event a flow's test-run sends (no real
 * customer's data). Each `data` is typed by its wire shape (the compiler refuses a field the shape does
 * not have, or one missing), and test/developers/ parses them with the shapes' schemas. Keyed by
 * every event type, so a type added to the catalogue without its example does not compile.
 */

type StockRow = Awaited<ReturnType<typeof listStock>>['data'][number];

export const EXAMPLE_SHOP = { id: '3d1f6a0e-5b7c-4e2a-9f13-8c4b2d7e6a10', slug: 'thoitrang-an-nhien' };
const at = (time: string) => `2026-11-20T${time}.000Z`;

const ORDER: z.infer<typeof OrderDetail> = {
  id: '0b6a3c52-7d0e-4f3e-9a51-2f7c8e41d9a0',
  code: 'DH000123',
  status: 'new',
  warehouseId: '5f0c7a2e-1b3d-4c8e-a6f9-0d2e4b6c8a13',
  warehouseName: 'Kho Hà Nội',
  customerId: '7c2e9a14-3f6b-4d8a-b1e5-6a0c2d4f8e21',
  salesChannelId: '9a4c6e80-2d1f-4b3a-8c5e-7f9b1d3a5c42',
  salesChannelName: 'Facebook',
  receivedAtShop: false,
  handlerUserId: 'c1e3a5f7-9b2d-4f6a-8e0c-2b4d6f8a0c13',
  handlerName: 'Trần Thị Mai',
  billFullName: 'Nguyễn Văn An',
  billPhone: '+84912345678',
  billEmail: 'an.nguyen@example.com',
  totalPrice: '450000',
  discount: '0',
  shippingFee: '30000',
  freeShipping: false,
  surcharge: '0',
  tax: '0',
  totalAmount: '480000',
  returnedAmount: '0',
  paidAmount: '0',
  occurredAt: at('08:30:00'),
  note: 'Giao giờ hành chính',
  tags: [{ id: 'e2f4a6c8-0b1d-4e3f-a5c7-9d1b3f5a7c24', name: 'Khách quen' }],
  createdAt: at('08:30:00'),
  updatedAt: at('08:30:00'),
  deletedAt: null,
  shippingAddress: {
    recipientName: 'Nguyễn Văn An',
    recipientPhone: '+84912345678',
    addressLine: '12 Phố Huế',
    geoSystem: 'new',
    provinceUnitId: '4b6d8f0a-2c4e-5a6b-8d0f-1a3c5e7b9d35',
    districtUnitId: null,
    wardUnitId: '6d8f0b2c-4e6a-5b8c-9e1a-3c5e7a9b1d46',
    provinceName: 'Thành phố Hà Nội',
    districtName: null,
    wardName: 'Phường Hai Bà Trưng',
  },
  creditApplied: '0',
  exchangeReturn: false,
  lines: [
    {
      id: 'f3a5c7e9-1b2d-4f4a-b6c8-0e2a4c6e8a57',
      variantId: 'a7c9e1b3-5d6f-4a8b-9c0e-2f4a6c8e0b68',
      productId: 'b8d0f2a4-6e7a-4b9c-8d1f-3a5c7e9b1d79',
      variantCode: 'AT-TRANG-M',
      variantName: 'Trắng / M',
      productName: 'Áo thun cotton',
      quantity: '3',
      unitPrice: '150000',
      discount: '0',
      lineTotal: '450000',
      returnedQuantity: '0',
    },
  ],
  payments: [],
};

const PRODUCT: z.infer<typeof ProductDetail> = {
  id: 'b8d0f2a4-6e7a-4b9c-8d1f-3a5c7e9b1d79',
  code: 'AT-TRANG',
  name: 'Áo thun cotton',
  description: 'Cotton 100%, form rộng',
  type: 'simple',
  isActive: true,
  categoryIds: ['d0f2b4c6-8a9c-4d1e-b3f5-5c7e9a1b3d80'],
  variants: [
    {
      id: 'a7c9e1b3-5d6f-4a8b-9c0e-2f4a6c8e0b68',
      code: 'AT-TRANG-M',
      barcode: '8934567890123',
      price: '150000',
      weightGrams: '250',
      lengthCm: null,
      widthCm: null,
      heightCm: null,
      isActive: true,
      attributes: { Màu: 'Trắng', Size: 'M' },
      keywords: ['AT M'],
    },
  ],
  images: [
    {
      id: 'e1a3c5e7-9b0d-4f2a-8c4e-6a8c0e2b4d91',
      url: 'https://cdn.shopflow.example/thoitrang-an-nhien/ao-thun-trang.jpg',
      kind: 'image',
      variantIds: [],
    },
  ],
  createdAt: at('07:55:12'),
  deletedAt: null,
};

const CUSTOMER: z.infer<typeof CustomerDetail> = {
  id: '7c2e9a14-3f6b-4d8a-b1e5-6a0c2d4f8e21',
  name: 'Nguyễn Văn An',
  gender: 'male',
  dateOfBirth: null,
  source: 'order',
  isBlocked: false,
  primaryPhone: '+84912345678',
  primaryEmail: 'an.nguyen@example.com',
  createdAt: at('08:29:58'),
  updatedAt: at('08:29:58'),
  deletedAt: null,
  contacts: [
    { id: '2a4c6e8a-0c1e-4a3b-9d5f-7b9d1f3a5c02', kind: 'phone', value: '+84912345678', isPrimary: true },
    { id: '3b5d7f9b-1d2f-4b4c-8e6a-8c0e2a4b6d13', kind: 'email', value: 'an.nguyen@example.com', isPrimary: true },
  ],
  addresses: [{ id: '4c6e8a0c-2e3a-4c5d-9f7b-9d1f3b5c7e24', ...ORDER.shippingAddress! }],
};

const STOCK_ROW: StockRow = {
  variantId: 'a7c9e1b3-5d6f-4a8b-9c0e-2f4a6c8e0b68',
  productId: 'b8d0f2a4-6e7a-4b9c-8d1f-3a5c7e9b1d79',
  warehouseId: '5f0c7a2e-1b3d-4c8e-a6f9-0d2e4b6c8a13',
  warehouseName: 'Kho Hà Nội',
  variantCode: 'AT-TRANG-M',
  quantity: '42',
  reserved: '3',
  available: '39',
  inTransit: '0',
  stockChangedAt: at('08:30:00'),
};

const PENDING_STEP: ShipmentDetail['events'][number] = {
  id: '6e8a0c2e-4a5b-4e7f-9b9d-1f3b5d7e9a46',
  status: null,
  carrierStatus: 'ready_to_pick',
  occurredAt: at('09:02:10'),
  location: null,
  description: 'Accepted by the carrier',
  reason: null,
};

const SHIPMENT: ShipmentDetail = {
  id: '5d7f9b1d-3f4a-4d6e-8a8c-0e2a4c6d8f35',
  carrier: 'carrier_a',
  trackingCode: 'GA24112000123',
  status: 'pending',
  orderId: ORDER.id,
  orderCode: ORDER.code,
  codAmount: '480000',
  feeTotal: '32000',
  createdAt: at('09:02:09'),
  updatedAt: at('09:02:10'),
  expectedDeliveryAt: '2026-11-22T10:00:00.000Z',
  failReason: null,
  recipientName: 'Nguyễn Văn An',
  recipientPhone: '+84912345678',
  recipientAddress: '12 Phố Huế, Phường Hai Bà Trưng, Thành phố Hà Nội',
  weightGram: 750,
  pickedUpAt: null,
  events: [PENDING_STEP],
};

const PICKED_UP: ShipmentDetail = {
  ...SHIPMENT,
  status: 'delivering',
  updatedAt: at('14:20:05'),
  pickedUpAt: at('14:20:05'),
  events: [
    PENDING_STEP,
    {
      id: '7f9b1d3f-5b6c-4f8a-8cae-2a4c6e8f0b57',
      status: 'delivering',
      carrierStatus: 'picked',
      occurredAt: at('14:20:05'),
      location: 'Bưu cục Hoàn Kiếm',
      description: 'Đã lấy hàng',
      reason: null,
    },
  ],
};

const MESSAGE: ChatMessage = {
  id: '8a0c2e4a-6c7d-4a9b-8d1f-3b5d7f9a1c68',
  conversationId: '9b1d3f5b-7d8e-4bac-9e2a-4c6e8a0b2d79',
  pageId: '0c2e4a6c-8e9f-4cbd-8f3b-5d7f9b1c3e80',
  direction: 'in',
  text: 'Shop ơi, áo trắng size M còn hàng không ạ?',
  attachments: [],
  sender: { type: 'customer', chatCustomerId: '1d3f5b7d-9fa0-4dce-9a4c-6e8a0c2d4f91', name: 'Nguyễn Văn An' },
  sentAt: at('10:05:33'),
};

const REPLY: ChatMessage = {
  ...MESSAGE,
  id: '2e4a6c8e-0a1b-4edf-8b5d-7f9b1d3e5a02',
  direction: 'out',
  text: 'Dạ còn ạ, shop gửi anh mẫu nhé.',
  sender: { type: 'page', name: 'Thời trang An Nhiên', isIntegration: true },
  sentAt: at('10:06:02'),
};

type Example = Omit<StoredEvent, 'id' | 'type'>;

const created = (time: string, data: object): Example => ({
  createdAt: new Date(at(time)),
  changes: null,
  data: data as Record<string, unknown>,
});
const changed = (time: string, data: object, changes: NonNullable<StoredEvent['changes']>): Example => ({
  ...created(time, data),
  changes,
});
const deleted = (time: string, data: object): Example =>
  created(time, { ...data, ...('updatedAt' in data ? { updatedAt: at(time) } : {}), deletedAt: at(time) });

export const EVENT_EXAMPLES: Record<EventType, Example> = {
  'order.created': created('08:30:00', ORDER),
  'order.updated': changed(
    '08:41:17',
    { ...ORDER, shippingFee: '0', freeShipping: true, totalAmount: '450000', updatedAt: at('08:41:17') },
    { fields: ['shippingFee', 'freeShipping', 'totalAmount'] },
  ),
  'order.status_changed': changed(
    '09:00:03',
    { ...ORDER, status: 'confirmed', updatedAt: at('09:00:03') },
    { fields: ['status'], status: { from: 'new', to: 'confirmed' } },
  ),
  'order.deleted': deleted('17:45:00', { ...ORDER, status: 'deleted' }),
  'product.created': created('07:55:12', PRODUCT),
  'product.updated': changed(
    '11:20:45',
    { ...PRODUCT, variants: [{ ...PRODUCT.variants[0]!, price: '135000' }] },
    { fields: ['variants.price'] },
  ),
  'product.deleted': deleted('18:02:30', PRODUCT),
  'inventory.stock_changed': created('08:30:00', STOCK_ROW),
  'customer.created': created('08:29:58', CUSTOMER),
  'customer.updated': changed(
    '09:10:41',
    { ...CUSTOMER, dateOfBirth: '1990-05-17', updatedAt: at('09:10:41') },
    { fields: ['dateOfBirth'] },
  ),
  'customer.deleted': deleted('18:10:00', CUSTOMER),
  'shipment.created': created('09:02:10', SHIPMENT),
  'shipment.status_changed': changed('14:20:05', PICKED_UP, {
    fields: ['status', 'pickedUpAt', 'events'],
    status: { from: 'pending', to: 'delivering' },
  }),
  'message.received': created('10:05:33', MESSAGE),
  'message.sent': created('10:06:02', REPLY),
};
