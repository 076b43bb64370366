export async function runCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('runCommand: not built yet'); }
export async function resumeCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('resumeCommand: not built yet'); }
export async function planCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('planCommand: not built yet'); }
export async function statusCommand(_opts: Record<string, unknown>): Promise<number> { throw new Error('statusCommand: not built yet'); }
