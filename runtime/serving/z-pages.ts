// The z-pages of this process (/statusz, /flagz) as a Kubernetes component serves them (api-types/z-pages.ts
// decides each answer): its name, its version, the Node.js runtime where a Go component says its Go version,
// its start, and its flags as it was started. The flagz page is rendered once (its separator drawn once, as
// upstream caches it); statusz draws its delimiter per response.
import { Z_PAGE_DELIMITERS, answerFlagz, answerStatusz, flagzText, type ZPageAnswer, type ZPageRequest } from '../../api-types/index.js';
import { packageVersion } from '../util/version.js';

export const Z_PAGE_PATHS = ['/statusz', '/flagz'] as const;

export interface ZPagesOptions {
  /** The component's name, as its pages title it (`featuregates-operator`). */
  name: string;
  /** Its flags as the process was started: every declared flag, given or not (see cmd/args.ts flagzFlags). */
  flags: Readonly<Record<string, string>>;
}

export class ZPages {
  private flagzPage?: string;
  private readonly startedMs = Math.floor((Date.now() - process.uptime() * 1000) / 1000) * 1000;

  constructor(private readonly o: ZPagesOptions, private readonly random: () => number = Math.random) {}

  /** The answer for `path` (one of Z_PAGE_PATHS); `served` are the other paths of the same port. */
  answer(path: string, r: ZPageRequest, served: readonly string[]): ZPageAnswer {
    const draw = () => Z_PAGE_DELIMITERS[Math.floor(this.random() * Z_PAGE_DELIMITERS.length)]!;
    if (path === '/flagz') {
      this.flagzPage ??= flagzText(this.o.name, this.o.flags, draw());
      return answerFlagz(r, this.o.name, this.o.flags, this.flagzPage);
    }
    return answerStatusz(r, {
      name: this.o.name, startedMs: this.startedMs, nowMs: Date.now(), runtimeVersion: `node${process.versions.node}`,
      binaryVersion: packageVersion(), paths: served.filter((p) => p !== '/statusz'),
    }, draw());
  }
}
