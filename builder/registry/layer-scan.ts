/**
 * One layer of a release payload, streamed: its bytes are gunzipped when they are gzip and fed to
 * a `TarFind` (tar-find.ts) until the file is found, with the decompressed bytes counted against
 * a budget. Used by the release resolver (release.ts).
 */
import { createGunzip, type Gunzip } from 'node:zlib';
import { UserError } from 'pkogen/model';
import type { TarFind } from './tar-find.js';

/**
 * One layer's bytes → (gunzip when it is gzip) → TarFind, with the decompressed bytes counted
 * against a budget. Once the file is found (or the archive ended) nothing more is decompressed;
 * the sink either stops the download or lets the rest through for the digest check only.
 */
export class LayerScan {
  plain = 0;
  private gz?: Gunzip;
  private mode?: 'gzip' | 'tar';
  private failed?: unknown;
  private first = new Uint8Array(0);
  private onClose?: () => void;

  constructor(
    readonly find: TarFind,
    private readonly plainLeft: number,
    private readonly readToEnd: boolean,
    private readonly overBudget: () => UserError,
    private readonly what: string,
  ) {}

  private feed(c: Uint8Array): void {
    if (this.find.finished) return;
    this.plain += c.length;
    if (this.plain > this.plainLeft) throw this.overBudget();
    this.find.write(c);
  }

  write(c: Uint8Array): void | 'stop' | Promise<void | 'stop'> {
    if (this.failed) throw this.failed;
    if (this.find.finished) return this.readToEnd ? undefined : 'stop';
    if (!this.mode) {
      // Two bytes tell gzip from tar; keep the first bytes until there are two.
      const b = new Uint8Array(this.first.length + c.length);
      b.set(this.first);
      b.set(c, this.first.length);
      if (b.length < 2) {
        this.first = b;
        return;
      }
      this.first = new Uint8Array(0);
      c = b;
      this.mode = b[0] === 0x1f && b[1] === 0x8b ? 'gzip' : 'tar';
      if (this.mode === 'gzip') {
        this.gz = createGunzip();
        this.gz.on('data', (out: Buffer) => {
          if (this.failed || this.find.finished) return;
          try {
            this.feed(out);
          } catch (e) {
            this.failed = e;
          }
          if (this.failed || this.find.finished) this.gz!.destroy();
        });
        this.gz.on('error', (e) => {
          this.failed ??= new UserError(`${this.what}: not valid gzip: ${e.message}`);
        });
        this.gz.on('close', () => this.onClose?.());
      }
    }
    if (this.mode === 'tar') {
      this.feed(c);
      return this.find.finished && !this.readToEnd ? 'stop' : undefined;
    }
    const gz = this.gz!;
    return new Promise<void | 'stop'>((resolve, reject) => {
      const settle = () => {
        this.onClose = undefined;
        if (this.failed) return reject(this.failed);
        resolve(this.find.finished && !this.readToEnd ? 'stop' : undefined);
      };
      if (gz.destroyed) return settle();
      // Settled by the write's callback, or by the stream closing (destroyed at the file or on a
      // failure), whichever comes first.
      this.onClose = settle;
      gz.write(c, () => this.onClose === settle && settle());
    });
  }

  /** After the last byte: flush gunzip (when the file was not found yet) and report failures. */
  async end(): Promise<void> {
    if (this.first.length) this.feed(this.first);
    const gz = this.gz;
    if (gz && !gz.destroyed && !this.find.finished && !this.failed) {
      await new Promise<void>((resolve) => {
        gz.once('close', () => resolve());
        gz.once('end', () => resolve());
        gz.end();
        gz.resume();
      });
    }
    gz?.destroy();
    if (this.failed) throw this.failed;
  }
}
