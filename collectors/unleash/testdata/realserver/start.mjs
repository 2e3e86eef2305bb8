// Starts unleash-server (installed with npm under UNLEASH_HOME, e.g.
// npm install --no-audit --no-fund unleash-server@7.5.1) on 127.0.0.1 for
// the real-server tests, with the default authentication and one admin
// API token created at start:
//
//   UNLEASH_HOME=$HOME/.cache/bfaudit-ci/unleash UNLEASH_PORT=4242 \
//   UNLEASH_DB=unleash_ci INIT_ADMIN_API_TOKENS='*:*.secret' node start.mjs
//
// The database (PostgreSQL on 127.0.0.1:5432 as postgres, or PGHOST,
// PGPORT, PGUSER, PGPASSWORD) must exist; Unleash migrates it at start.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const home = process.env.UNLEASH_HOME;
if (!home) {
	console.error('start.mjs: set UNLEASH_HOME to the directory unleash-server was installed in');
	process.exit(2);
}
if (!process.env.INIT_ADMIN_API_TOKENS) {
	console.error('start.mjs: set INIT_ADMIN_API_TOKENS, e.g. *:*.<secret>');
	process.exit(2);
}
const { start, LogLevel } = await import(pathToFileURL(join(home, 'node_modules/unleash-server/dist/lib/server-impl.js')).href);

await start({
	db: {
		host: process.env.PGHOST || '127.0.0.1',
		port: Number(process.env.PGPORT || 5432),
		user: process.env.PGUSER || 'postgres',
		password: process.env.PGPASSWORD || '',
		database: process.env.UNLEASH_DB || 'unleash_ci',
		ssl: false,
	},
	server: { host: '127.0.0.1', port: Number(process.env.UNLEASH_PORT || 4242) },
	logLevel: LogLevel.warn,
	// No telemetry and no version check from CI.
	versionCheck: { enable: false },
	telemetry: false,
});
