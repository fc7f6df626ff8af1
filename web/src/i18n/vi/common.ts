/** Words every screen shares (Vietnamese, the app's first language). */
export const common = {
  appName: 'Shopflow',
  nav: { main: 'Điều hướng chính', flows: 'Luồng tự động', connections: 'Kết nối API', setup: 'Thiết lập cửa hàng' },
  logOut: 'Đăng xuất',
  loading: 'Đang tải…',
  language: { label: 'Ngôn ngữ', vi: 'Tiếng Việt', en: 'English' },
  retry: 'Thử lại',
  save: 'Lưu',
  saved: 'Đã lưu',
  cancel: 'Huỷ',
  networkError: 'Không kết nối được máy chủ. Kiểm tra mạng rồi thử lại.',
};
