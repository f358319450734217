// Alerts through the app as it is deployed: Alertmanager notifications POSTed to the served app's
// `/alerts/alertmanager` route on loopback, the repository found through the app's installation,
// triage with the bundled playbooks, each new alert's issue opened and its playbook started,
// GitHub answered by the tests' fake (nock; no network). The scenario is shared with the tests
// (test/entries/app/alert-scenario.ts). Run with `node --import tsx bench/alerts-app.ts`.
import nock from "nock";
import { alertScenario } from "../test/entries/app/alert-scenario.js";
import { table } from "./lib/common.mjs";

nock.disableNetConnect();
process.stderr.write("  alerts through the app: warm-up\n");
await alertScenario({ alerts: 10, notifications: 2 });
process.stderr.write("  alerts through the app: 20 notifications of 10 alerts\n");
const r = await alertScenario({ alerts: 10, notifications: 20 });

console.log("## Alerts through the app\n");
console.log(
  "20 Alertmanager notifications of 10 alerts each (200 distinct keys) POSTed one after another to the served app's `/alerts/alertmanager` on loopback, for each kind in turn, through the real triage, discovery and run start; GitHub is the tests' fake, answering at once, and counts every request (304s included). \"With deliveries\" adds the webhooks the app's own requests cause (the started runs' continuations), delivered signed over HTTP.\n",
);
console.log(
  table(
    ["alert", "requests per alert", "with deliveries", "alerts/s", "by route (per alert)"],
    r.costs.map((c) => [
      c.kind,
      c.perAlert.toFixed(2),
      c.perAlertWithDeliveries.toFixed(2),
      Math.round(c.alertsPerSecond).toLocaleString("en"),
      Object.entries(c.byRoute)
        .sort((a, b) => b[1] - a[1])
        .map(
          ([k, v]) => `${k.replace(/\/git\/trees\/[0-9a-f]+/, "/git/trees/:sha")} ${v.toFixed(2)}`,
        )
        .join(", "),
    ]),
    "lrrrl",
  ),
);
