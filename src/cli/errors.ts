/** Bad command-line usage: the CLI exits with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type SetExit = (code: number) => void;
