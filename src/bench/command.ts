export async function benchCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('benchCommand: not built yet'); }
