/**
 * Refusals of the server in plain words: by problem code, by what still uses an entry (`usedBy` of
 * a 409), and a field's error beside the field. The server's own text stays under "technical details".
 */
export const problems = {
  codes: {
    'validation-failed': 'Có thông tin chưa đúng: xem các ô được đánh dấu.',
    conflict: 'Không làm được vì trùng hoặc mâu thuẫn với dữ liệu hiện có.',
    'limit-reached': 'Cửa hàng đã đạt số lượng tối đa cho mục này.',
    'not-found': 'Không tìm thấy mục này: có thể ai đó vừa xoá nó. Hãy tải lại trang.',
    'insufficient-permission': 'Bạn không có quyền làm việc này.',
    'not-logged-in': 'Phiên đăng nhập đã hết. Hãy đăng nhập lại.',
    'invalid-credentials': 'Sai cửa hàng, email hoặc mật khẩu.',
    'csrf-token-invalid': 'Phiên làm việc không còn hợp lệ. Hãy tải lại trang.',
    'rate-limited': 'Bạn thao tác quá nhanh. Chờ một lát rồi thử lại.',
    'internal-error': 'Máy chủ gặp lỗi. Thử lại sau ít phút.',
    other: 'Máy chủ từ chối yêu cầu.',
  },
  network: 'Không kết nối được máy chủ. Kiểm tra mạng rồi bấm Thử lại.',
  technicalDetails: 'Chi tiết kỹ thuật',
  inUse: {
    orders: 'Không xoá được: đang dùng cho {{count}} đơn hàng.',
    'stock-rows': 'Không xoá được: kho còn hàng tồn ({{count}} dòng hàng).',
    'open-stock-documents': 'Không xoá được: còn {{count}} phiếu kho chưa xong.',
    'carrier-connections': 'Không xoá được: đang là kho lấy hàng của {{count}} kết nối vận chuyển. Ngắt kết nối trước.',
    other: 'Không xoá được: mục này đang được dùng.',
  },
  field: {
    required: 'Ô này cần được điền.',
    taken: 'Tên này đã có. Hãy chọn tên khác.',
    tooLong: 'Nội dung quá dài.',
    invalid: 'Giá trị chưa hợp lệ.',
  },
};
