export async function reprocessCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('reprocessCommand: not built yet'); }
export async function ingestCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('ingestCommand: not built yet'); }
