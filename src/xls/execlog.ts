/**
 * Execution log of one processing: `{APP_LOGS_DIR}/<yyyy>/<mm>/<id>.log`, plain text, one
 * line per event with its timestamp (America/Sao_Paulo). The directory is the data volume
 * shared by the replicas, so any replica can serve GET …/logs.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';

export function execLogRelativePath(id: string, receivedAt: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit' })
    .formatToParts(receivedAt);
  const y = parts.find((p) => p.type === 'year')!.value;
  const m = parts.find((p) => p.type === 'month')!.value;
  return `${y}/${m}/${id}.log`;
}

const stamp = new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit',
  hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hour12: false,
});

export class ExecLog {
  private stream: WriteStream;
  readonly path: string;

  constructor(logsDir: string, relativePath: string) {
    this.path = join(logsDir, relativePath);
    mkdirSync(dirname(this.path), { recursive: true });
    this.stream = createWriteStream(this.path, { flags: 'a' });
    this.stream.on('error', () => undefined); // a full disk must not crash the processing
  }

  line(message: string): void {
    this.stream.write(`${stamp.format(new Date()).replace(',', '.')} ${message}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}
