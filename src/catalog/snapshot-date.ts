/**
 * The day a row belongs to, for views: its run's `run_date`; rows without a run (ingested files) the UTC day they
 * were loaded. Part of the catalog so the families' views and the core views share one rule.
 */
export const snapshotDate = (alias: string, runs = 'r') => `coalesce(try_cast(${runs}.run_date AS DATE), CAST(timezone('UTC', ${alias}._loaded_at) AS DATE))`;

export const SNAPSHOT_DATE = { name: 'snapshot_date', description: 'Day of the run that collected the rows (its `--run-date`); for ingested files, the UTC day they were loaded. The same day as the Parquet partition.' };
