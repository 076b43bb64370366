export async function tablesCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('tablesCommand: not built yet'); }
