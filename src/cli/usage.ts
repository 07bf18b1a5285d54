export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: waybill <command> [options]   (add --json for one JSON object on stdout)

  start [--role all|api|worker|scheduler]   run the daemon (default role: all)
  migrate                                   apply database migrations and exit
  shops create --name NAME [--webhook-url URL]
  shops list
  shops rotate-secret PK                    prints the shop's new webhook secret once
  keys create --shop PK [--label TEXT]      prints the key once: store it
  keys list [--shop PK]
  keys revoke PREFIX
  marketplaces create --name NAME [--pk PK]
  marketplaces list
  connectors list                           the connectors file's entries and their last runs
  connectors run NAME                       one run now, here; prints its summary

Environment: DATABASE_URL (unset: embedded Postgres in WAYBILL_DATA_DIR, default ./data),
HOST, PORT, PUBLIC_URL, LOG_LEVEL, WAYBILL_ADMIN_TOKEN, WAYBILL_CONNECTORS, WAYBILL_SECRET_KEY. See README.md.`;
