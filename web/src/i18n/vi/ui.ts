/** Words of the shared pieces of every screen (web/src/ui.tsx). */
export const ui = {
  shownOnce: 'Hãy sao chép ngay: nội dung này chỉ hiện một lần.',
  copy: 'Sao chép',
  copied: 'Đã sao chép',
  rename: 'Đổi tên',
  remove: 'Xoá',
  edit: 'Sửa',
};
