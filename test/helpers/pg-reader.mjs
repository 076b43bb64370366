// A BI reader in its own process: counts every table in one statement (one snapshot), again and again, and
// prints each result as a line (JSON array in the order given) until it is killed.
import pg from 'pg';

const [url, schema, list] = process.argv.slice(2);
const tables = list.split(',');
const sql = `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${schema}."${t}")::int`).join(', ')}`;
const client = new pg.Client({ connectionString: url });
await client.connect();
let stop = false;
process.on('SIGTERM', () => { stop = true; });
while (!stop) {
  try {
    const r = await client.query({ text: sql, rowMode: 'array' });
    process.stdout.write(`${JSON.stringify(r.rows[0])}\n`);
  } catch (err) {
    process.stdout.write(`error ${err.message}\n`);
  }
  await new Promise((r) => setTimeout(r, 5));
}
await client.end();
