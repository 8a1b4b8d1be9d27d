// Errors of the databases channel. Each message says what happened and what to do about it.

/** A statement Posthoc will not run (or the database refused), before anything was kept. */
export class DbRefusal extends Error {}

/** The action would change more rows than its grant allows without approval; everything was rolled back. */
export class OverRowLimit extends Error {
  constructor(
    readonly rows: number,
    readonly limit: number,
    readonly database: string,
  ) {
    super(
      `This action would change ${rows} rows in "${database}", more than the ${limit} its grant allows without approval. Everything it did was rolled back; it runs once the person approves it.`,
    );
  }
}

/** Undo or redo refused: rows (or objects) changed since the action. Nothing was written. */
export class DbConflict extends Error {
  constructor(
    readonly items: string[],
    message: string,
  ) {
    super(message);
  }
}
