import { useEffect, useState } from 'react';

/**
 * The app routes in the URL's fragment (`/admin/#/flows/…`), so the API serves one page and a
 * reload or a shared link lands on the same screen.
 */
export function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = () => setRoute(read());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

export function navigate(path: string): void {
  window.location.hash = path;
}
