/**
 * Ends a finished command's process even when something still holds it open. A command that failed half-way (a
 * DuckDB error in the middle of a load, say) can leave a socket, a timer or a pending call behind, and a process
 * that never exits is a nightly cron job that never ends and never reports. The timer is unref'd: a process that
 * empties its event loop exits on its own first, with nothing printed.
 */
export function exitWhenDone(graceMs = 5000, out: NodeJS.WritableStream = process.stderr): void {
  const timer = setTimeout(() => {
    const held = process.getActiveResourcesInfo();
    const code = Number(process.exitCode ?? 0) || 0;
    out.write(`seo-etl: the command finished, but ${held.length ? held.join(', ') : 'something'} still held the process open ${Math.round(graceMs / 1000)} s later; exiting with code ${code}\n`);
    process.exit(code);
  }, graceMs);
  timer.unref();
}
