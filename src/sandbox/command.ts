export async function sandboxCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('sandboxCommand: not built yet'); }
