import { CustomerRow } from '../../domain/customers/index.js';
import { EVENT_EXAMPLES, EXAMPLE_SHOP } from '../../domain/flows/index.js';
import { OrderRow, type OrderDetail } from '../../domain/orders/index.js';
import type { ProductDetail } from '../../domain/catalog/index.js';
import { shipmentListRowSchema, type ShipmentDetail } from '../../domain/shipments/index.js';
import type { ChatMessage } from '../../domain/chat/index.js';

/**
 * One realistic record of each component the public document answers or takes, by component name.
 * The records events carry are the developer site's event examples (one source); the rest are
 * written here in the same shop. Every one is checked against its schema by the document's lint
 * (test/api-contract/openapi-lint.test.ts).
 */

const created = <T>(type: keyof typeof EVENT_EXAMPLES) => EVENT_EXAMPLES[type].data as T;
export const ORDER = created<OrderDetail>('order.created');
export const PRODUCT = created<ProductDetail>('product.created');
export const CUSTOMER = created<{ addresses: object[] } & Record<string, unknown>>('customer.created');
export const SHIPMENT = created<ShipmentDetail>('shipment.created');
export const MESSAGE = created<ChatMessage>('message.received');
export const STOCK_ROW = created<object>('inventory.stock_changed');

const VARIANT = PRODUCT.variants[0]!;
const WAREHOUSE_ID = ORDER.warehouseId;
const CHANNEL_ID = ORDER.salesChannelId!;
const CONNECTION_ID = 'e9cf195d-80ff-45d0-ad1e-73a476b53052';
const CHAT_CUSTOMER = {
  id: MESSAGE.sender.type === 'customer' ? MESSAGE.sender.chatCustomerId : '0c8d2476-0b1b-4c5e-8ec4-32f53e76b1d1',
  name: 'Nguyễn Văn An',
  phone: '+84912345678',
  customerId: ORDER.customerId,
};
const at = (time: string) => `2026-11-20T${time}.000Z`;

export const RECORD_EXAMPLES: Record<string, unknown> = {
  Shop: {
    id: EXAMPLE_SHOP.id,
    slug: EXAMPLE_SHOP.slug,
    name: 'Thời trang An Nhiên',
    application: { name: 'Đồng bộ kế toán', permissions: ['pos.orders.read', 'pos.customers.read'], pageIds: [] },
    readOnly: false,
  },
  Order: ORDER,
  OrderRow: OrderRow.parse(ORDER),
  OrderLine: ORDER.lines[0],
  Address: ORDER.shippingAddress,
  OrderNote: {
    id: 'a47cf8eb-b73c-49a3-ba3c-da1ccf69a80d',
    message: 'Khách hẹn giao sau 17h',
    createdByName: 'Đồng bộ kế toán',
    createdByIsIntegration: true,
    createdAt: at('08:35:10'),
    updatedAt: at('08:35:10'),
  },
  Product: PRODUCT,
  ProductRow: {
    id: PRODUCT.id,
    code: PRODUCT.code,
    name: PRODUCT.name,
    type: PRODUCT.type,
    isActive: PRODUCT.isActive,
    categoryNames: ['Áo'],
    variantCount: PRODUCT.variants.length,
    imageUrl: PRODUCT.images[0]?.url ?? null,
    priceFrom: VARIANT.price,
    priceTo: VARIANT.price,
    updatedAt: PRODUCT.createdAt,
    deletedAt: null,
  },
  Variant: VARIANT,
  StockRow: STOCK_ROW,
  InventoryDocument: {
    id: 'a15b2bcf-9dd3-47b4-849a-fad57b37a122',
    kind: 'receipt',
    status: 'posted',
    warehouseId: WAREHOUSE_ID,
    targetWarehouseId: null,
    note: 'Nhập hàng đợt 2 từ xưởng',
    lines: [{ variantId: VARIANT.id, quantity: '20' }],
    createdAt: at('07:58:00'),
    postedAt: at('08:00:41'),
    receivedAt: null,
  },
  Customer: CUSTOMER,
  CustomerRow: CustomerRow.parse(CUSTOMER),
  CustomerAddress: CUSTOMER.addresses[0],
  Shipment: SHIPMENT,
  ShipmentRow: shipmentListRowSchema.parse(SHIPMENT),
  ChatMessage: MESSAGE,
  ChatSender: MESSAGE.sender,
  ChatAttachment: { type: 'image', url: 'https://cdn.shopflow.example/thoitrang-an-nhien/bang-size.jpg' },
  ChatAttachmentInput: { type: 'image', url: 'https://cdn.shopflow.example/thoitrang-an-nhien/bang-size.jpg' },
  ChatCustomer: CHAT_CUSTOMER,
  ChatConversation: {
    id: MESSAGE.conversationId,
    pageId: MESSAGE.pageId,
    customer: CHAT_CUSTOMER,
    lastMessageAt: MESSAGE.sentAt,
    snippet: MESSAGE.text,
    canReply: true,
    replyWindowEndsAt: '2026-11-21T10:05:33.000Z',
    createdAt: at('10:05:33'),
  },
  ChatComment: {
    id: '1a9a2487-ae7a-4ba9-be03-9261382c3ac6',
    pageId: MESSAGE.pageId,
    postId: '104857600123456_987654321098765',
    parentId: null,
    author: { chatCustomerId: CHAT_CUSTOMER.id, name: 'Nguyễn Văn An' },
    text: 'Áo này còn size L không shop?',
    isHidden: false,
    canReplyPrivately: true,
    privatelyRepliedAt: null,
    createdAt: at('09:45:12'),
    updatedAt: at('09:45:13'),
    removedAt: null,
  },
  ChatPage: { id: MESSAGE.pageId, name: 'Thời trang An Nhiên', platform: 'facebook', connected: true },
  GeoUnit: {
    id: ORDER.shippingAddress!.provinceUnitId,
    system: 'new',
    level: 1,
    parentId: null,
    name: 'Thành phố Hà Nội',
  },
  CarrierConnection: { id: CONNECTION_ID, carrier: 'carrier_a', name: 'Giao hàng nhanh – Kho Hà Nội', active: true },
  StaffMember: { id: ORDER.handlerUserId, name: 'Trần Thị Mai' },
  Role: { id: '853b7d98-f487-42ba-92eb-b37f595271e5', name: 'Nhân viên bán hàng' },
  Category: { id: PRODUCT.categoryIds[0], name: 'Áo' },
  Warehouse: { id: WAREHOUSE_ID, name: 'Kho Hà Nội', address: '45 Trần Duy Hưng, Cầu Giấy, Hà Nội' },
  Tag: ORDER.tags[0],
  PaymentMethod: { id: '14a6a323-c00d-4860-9850-7d7dbd91a7c8', name: 'Chuyển khoản Vietcombank', kind: 'bank_transfer' },
  SalesChannel: { id: CHANNEL_ID, name: 'Facebook' },
  EventChanges: EVENT_EXAMPLES['order.status_changed'].changes,
};

/** The ids a request example names: the records above. */
export const EXAMPLE_IDS = {
  warehouse: WAREHOUSE_ID,
  variant: VARIANT.id,
  customer: ORDER.customerId!,
  salesChannel: CHANNEL_ID,
  category: PRODUCT.categoryIds[0]!,
  order: ORDER.id,
  connection: CONNECTION_ID,
  paymentMethod: '14a6a323-c00d-4860-9850-7d7dbd91a7c8',
  tag: ORDER.tags[0]!.id,
  province: ORDER.shippingAddress!.provinceUnitId!,
  ward: ORDER.shippingAddress!.wardUnitId!,
};
