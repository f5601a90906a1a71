/**
 * Execution log of one processing: `{APP_LOGS_DIR}/<log_arquivo>`, where SQL decides the
 * relative path (`xls_log_arquivo`: <yyyy>/<mm>/<id>.log). Plain text, one line per event
 * with its timestamp (America/Sao_Paulo). APP_LOGS_DIR is the data volume the replicas
 * share, so any replica can serve GET …/logs.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { escaparLinha } from './nomes.js';

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
    // one event, one line: anything not printable in the message is escaped (names come from files)
    this.stream.write(`${stamp.format(new Date()).replace(',', '.')} ${escaparLinha(message)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}
