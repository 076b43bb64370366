// The tests' throwaway PostgreSQL server is the benchmark's (one implementation).
export { startPostgres, postgresBin, type TestPostgres } from '../../src/bench/postgres-server.js';
