/** The browser walks' shared parts: a free port for the service, Debian's chromium through playwright-core. */
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

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
