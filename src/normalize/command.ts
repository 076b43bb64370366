export async function docsCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('docsCommand: not built yet'); }
