/**
 * The browser walks' shared parts: a free port for the service, Debian's chromium through
 * playwright-core, and the layout checks of a page (sideways scroll, axe-core).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A port free on loopback now (the service listens on it next). */
export async function portaLivre(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Headless chromium, quiet (no updates, sync or background traffic). */
export async function abrirChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} ausente: npm test instala o pacote Debian chromium (scripts/bootstrap.mjs)`);
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface Medida { scrollWidth: number; innerWidth: number; largos: string[] }
export interface Violacao { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }

/** The page's width against the window's, and the first elements that stick out on the right. */
export async function medir(page: Page): Promise<Medida> {
  // browser-side code as text: the project's TypeScript has no DOM types
  return page.evaluate(`(() => {
    const w = window.innerWidth;
    const largos = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > w + 1)
      .slice(0, 5).map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right));
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: w, largos };
  })()`) as Promise<Medida>;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations (injected inline: open the context with bypassCSP). */
export async function axe(page: Page): Promise<Violacao[]> {
  await page.addScriptTag({ content: AXE });
  const r = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`) as { violations: Violacao[] };
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
