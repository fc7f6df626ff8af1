import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import axe from 'axe-core';
import { expect } from 'vitest';
import { dataDir, projectRoot } from '../../scripts/bootstrap/paths.js';

const SYSTEM_CHROMIUMS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
export const SCREENSHOTS = join(dataDir, 'screenshots');

/**
 * No optimising compiler (TurboFan) for the pages' scripts: a test's page lives for seconds, too short
 * for optimised code of the app and axe-core to pay back its compiling (the shop set-up screens'
 * Chromium: 32.9 s of CPU against 35.9, three runs each).
 */
const WITHOUT_TURBOFAN = '--js-flags=--no-opt';

/** Launches tried while another process unpacks the packaged binary: half a second apart, 30 s in all. */
const UNPACKING_TRIES = 60;

/** A real Chromium: `CHROME_PATH`, else a system Chromium, else the binary inside `@sparticuz/chromium` (nothing is downloaded). */
export async function launchChromium(): Promise<Browser> {
  const system = process.env.CHROME_PATH ?? SYSTEM_CHROMIUMS.find((path) => existsSync(path));
  if (system) return chromium.launch({ executablePath: system, args: [WITHOUT_TURBOFAN], headless: true });
  const { default: packaged } = await import('@sparticuz/chromium');
  const options = {
    executablePath: await packaged.executablePath(),
    args: [...rasterOnly(packaged.args), WITHOUT_TURBOFAN],
    headless: true,
  };
  // The suite's files share one temporary folder, where the package unpacks its binary once: a file
  // that finds it there while another file's process is still writing it cannot run it yet (ETXTBSY).
  for (let attempt = 1; ; attempt++) {
    try {
      return await chromium.launch(options);
    } catch (error) {
      if (!String(error).includes('ETXTBSY') || attempt === UNPACKING_TRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * The packaged binary's flags without its GPU emulation (SwiftShader's GL, for WebGL, which no page
 * here draws): the screens are drawn by the software rasteriser alone, the same pixels for about a
 * third less CPU in a browser file.
 */
function rasterOnly(args: readonly string[]): string[] {
  const gpu = ['--use-gl=', '--use-angle=', '--enable-unsafe-swiftshader', '--in-process-gpu', '--ignore-gpu-blocklist'];
  return [...args.filter((arg) => !gpu.some((flag) => arg.startsWith(flag))), '--disable-gpu'];
}

/** No serious or critical accessibility violation on the screen as it is, and its screenshot saved. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const violations = await accessibilityViolations(page);
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
}

/**
 * Every axe-core rule on the page as it is, the violations only. axe is put into the page once (the
 * app's screens change without a reload) and asked for nothing but its violations: @axe-core/playwright
 * injected it on every call and gathered every rule's passes too, 0.7 s a screen against 0.1 s.
 */
async function accessibilityViolations(page: Page): Promise<axe.Result[]> {
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.evaluate(axe.source);
  return page.evaluate<axe.Result[]>(`window.axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)`);
}

/** The built app's JS and CSS, raw and gzipped (what a first load fetches besides index.html). */
export function builtAssetSizes(): { files: number; rawBytes: number; gzipBytes: number } {
  const assets = join(projectRoot, 'web', 'dist', 'assets');
  const files = readdirSync(assets).filter((name) => /\.(js|css)$/.test(name));
  const contents = files.map((name) => readFileSync(join(assets, name)));
  return {
    files: files.length,
    rawBytes: contents.reduce((sum, content) => sum + content.length, 0),
    gzipBytes: contents.reduce((sum, content) => sum + gzipSync(content, { level: 9 }).length, 0),
  };
}
