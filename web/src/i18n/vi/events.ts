/**
 * Event types and order states by their plain names (the codes stay beside them on screen, for
 * integrators), and the order status matrix of the shop set-up.
 */
export const events = {
  types: {
    order: { created: 'Đơn hàng mới', updated: 'Đơn hàng được sửa', status_changed: 'Đơn hàng đổi trạng thái', deleted: 'Đơn hàng bị xoá' },
    product: { created: 'Sản phẩm mới', updated: 'Sản phẩm được sửa', deleted: 'Sản phẩm bị xoá' },
    inventory: { stock_changed: 'Tồn kho thay đổi' },
    customer: { created: 'Khách hàng mới', updated: 'Khách hàng được sửa', deleted: 'Khách hàng bị xoá' },
    shipment: { created: 'Vận đơn mới', status_changed: 'Vận đơn đổi trạng thái' },
    message: { received: 'Nhận tin nhắn', sent: 'Gửi tin nhắn' },
  },
  orderStates: {
    new: 'Mới',
    waiting_stock: 'Chờ hàng',
    confirmed: 'Đã xác nhận',
    packing: 'Đang đóng gói',
    ready_to_ship: 'Chờ lấy hàng',
    shipped: 'Đã gửi đi',
    delivered: 'Đã giao hàng',
    paid: 'Đã thanh toán',
    returning: 'Đang hoàn',
    partially_returned: 'Hoàn một phần',
    returned: 'Đã hoàn',
    cancelled: 'Đã huỷ',
    deleted: 'Đã xoá',
  },
  matrix: {
    title: 'Ma trận trạng thái đơn hàng',
    intro:
      'Mỗi ô là một bước chuyển trạng thái đơn hàng được phép. Bỏ chọn để không cho phép bước đó (qua ứng dụng và API); chọn lại để cho phép lại.',
    from: 'Từ «{{state}}» sang',
    readOnly: 'Bạn chỉ được xem; muốn thay đổi cần quyền «{{permission}}».',
    allowed: 'Đã lưu: cho phép chuyển từ «{{from}}» sang «{{to}}».',
    removed: 'Đã lưu: không cho phép chuyển từ «{{from}}» sang «{{to}}» nữa.',
  },
};
