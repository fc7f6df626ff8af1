/** The login screen. */
export const login = {
  title: 'Đăng nhập quản trị Shopflow',
  note: 'Đăng nhập bằng tài khoản nhân viên của cửa hàng.',
  shop: 'Mã cửa hàng',
  shopHint: 'Mã ngắn trong địa chỉ cửa hàng, ví dụ: thoi-trang-an',
  email: 'Email',
  password: 'Mật khẩu',
  logIn: 'Đăng nhập',
  loggingIn: 'Đang đăng nhập…',
};
