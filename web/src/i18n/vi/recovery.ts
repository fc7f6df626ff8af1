/** Resending every failed delivery of a flow since a time, in one paced batch (the delivery history screen). */
export const recovery = {
  title: 'Gửi lại mọi lần gửi thất bại',
  intro:
    'Sau khi máy nhận hoạt động trở lại, gửi lại trong một đợt mọi lần gửi thất bại của luồng này kể từ thời điểm bạn chọn, giữ nguyên webhook-id. Đợt gửi được giãn nhịp để máy nhận không bị quá tải.',
  since: 'Thất bại kể từ',
  sinceHint: 'Giờ Việt Nam (GMT+7).',
  perMinute: 'Tốc độ (số lần gửi mỗi phút)',
  perMinuteHint: 'Từ 1 đến {{max}} lần mỗi phút.',
  start: 'Gửi lại tất cả',
  started: 'Đã bắt đầu đợt gửi lại.',
  joined: 'Đợt gửi lại từ thời điểm này đang chạy: đây là tiến độ của đợt đó (tốc độ giữ như cũ).',
  readOnly: 'Chỉ người có quyền «{{permission}}» mới bắt đầu được đợt gửi lại.',
  batch: 'Đợt gửi lại các lần thất bại từ {{since}}, {{perMinute}} lần mỗi phút',
  states: {
    running: 'Đang gửi lại',
    done: 'Đã gửi lại xong',
    stopped: 'Đã dừng',
  },
  progress: 'Tiến độ gửi lại',
  counts: {
    found: 'Thất bại tìm thấy',
    resent: 'Đã gửi lại',
    delivered: 'Gửi thành công',
    stillFailing: 'Vẫn thất bại',
    skipped: 'Bỏ qua (đã gửi lại bằng tay hoặc không còn)',
  },
  temporal: 'Xem đợt gửi trong Temporal',
};
