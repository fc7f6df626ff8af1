import type { Messages } from '../messages';
import type { login as vi } from '../vi/login';

export const login: Messages<typeof vi> = {
  title: 'Shopflow admin login',
  note: 'Log in with your shop member account.',
  shop: 'Shop code',
  shopHint: "The short code in the shop's address, for example: thoi-trang-an",
  email: 'E-mail',
  password: 'Password',
  logIn: 'Log in',
  loggingIn: 'Logging in…',
};
