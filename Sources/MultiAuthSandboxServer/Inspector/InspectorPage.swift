/// The inspector page served at `/`: plain HTML and a little JavaScript (no build step, no
/// outside script or style) that reads `GET /_multiauth/state` once a second and shows the
/// inbox, the pending flows, the issued sessions, the request log, the clock with "advance",
/// the active faults and scenarios, and a reset button (Docs/Emulator.md, "Inspector").
///
/// Every value from the server is inserted as text (`textContent`), never as markup.
enum InspectorPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>MultiAuth sandbox inspector</title>
        <style>
        body { font: 14px/1.4 system-ui, -apple-system, "DejaVu Sans", sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; }
        header { background: #1d2330; color: #fff; padding: 12px 20px; display: flex; gap: 24px; align-items: center; flex-wrap: wrap; }
        header h1 { font-size: 18px; margin: 0; }
        header .muted { color: #b8c0d0; }
        main { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr)); gap: 16px; padding: 16px 20px; }
        section { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 12px 14px; overflow: auto; }
        section h2 { font-size: 15px; margin: 0 0 8px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
        th { font-weight: 600; color: #566; font-size: 12px; }
        .code { font: 600 18px/1.2 ui-monospace, "DejaVu Sans Mono", monospace; letter-spacing: 2px; color: #0a5; }
        .failed { color: #b22; }
        .empty { color: #889; font-style: italic; }
        button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #99a; background: #fff; cursor: pointer; }
        button.danger { border-color: #b22; color: #b22; }
        input { font: inherit; width: 90px; padding: 3px 6px; }
        .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; word-break: break-all; }
        </style>
        </head>
        <body>
        <header>
          <h1>MultiAuth sandbox</h1>
          <span>clock <strong id="clock">…</strong> <span class="muted" id="clock-mode"></span></span>
          <span>
            <button data-advance="30">+30 s</button>
            <button data-advance="300">+5 min</button>
            <input id="advance-seconds" type="number" min="0" step="1" value="60" aria-label="seconds">
            <button id="advance">advance</button>
          </span>
          <span class="muted">seed <span id="seed">…</span> · <span id="requests-count">0</span> requests</span>
          <button class="danger" id="reset">reset</button>
          <span class="muted" id="status"></span>
        </header>
        <main>
          <section id="inbox-section"><h2>Inbox</h2>
            <table><thead><tr><th>#</th><th>to</th><th>channel</th><th>code</th><th>link</th><th>status</th><th>sent</th></tr></thead>
            <tbody id="inbox"></tbody></table></section>
          <section><h2>Pending flows</h2>
            <table><thead><tr><th>provider</th><th>destination</th><th>kind</th><th>expires</th><th>wrong</th></tr></thead>
            <tbody id="flows"></tbody></table></section>
          <section><h2>Issued sessions</h2>
            <table><thead><tr><th>provider</th><th>user</th><th>destination</th><th>state</th></tr></thead>
            <tbody id="sessions"></tbody></table></section>
          <section><h2>Active faults and scenarios</h2>
            <table><thead><tr><th>id</th><th>type</th><th>what</th><th>where</th><th></th></tr></thead>
            <tbody id="faults"></tbody></table>
            <p><button id="clear-faults">clear all faults</button></p></section>
          <section><h2>Request log (redacted)</h2>
            <table><thead><tr><th>#</th><th>method</th><th>host</th><th>path</th><th>outcome</th></tr></thead>
            <tbody id="requests"></tbody></table></section>
        </main>
        <script>
        "use strict";
        const api = "/_multiauth";
        function cell(text, className) {
          const td = document.createElement("td");
          td.textContent = text === null || text === undefined ? "" : String(text);
          if (className) td.className = className;
          return td;
        }
        function fill(id, rows, columns, empty) {
          const body = document.getElementById(id);
          body.replaceChildren();
          if (rows.length === 0) {
            const tr = document.createElement("tr");
            const td = cell(empty, "empty");
            td.colSpan = columns;
            tr.appendChild(td);
            body.appendChild(tr);
            return;
          }
          for (const cells of rows) {
            const tr = document.createElement("tr");
            for (const td of cells) tr.appendChild(td);
            body.appendChild(tr);
          }
        }
        function time(iso) { return iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : ""; }
        async function call(method, path, body) {
          const response = await fetch(api + path, {
            method, headers: body ? {"Content-Type": "application/json"} : {}, body: body ? JSON.stringify(body) : undefined
          });
          if (!response.ok) throw new Error(method + " " + path + " → " + response.status);
          return response.status === 204 ? null : response.json();
        }
        function render(state) {
          document.getElementById("clock").textContent = time(state.clock.now);
          document.getElementById("clock-mode").textContent = state.clock.mode === "manual" ? "(manual)" : "(real time)";
          document.getElementById("seed").textContent = state.seed;
          document.getElementById("requests-count").textContent = state.requestCount;
          fill("inbox", state.inbox.map(m => [
            cell(m.id), cell(m.destination, "mono"), cell(m.channel), cell(m.code || "—", m.code ? "code" : ""),
            cell(m.link || "", "mono"), cell(m.status, m.status === "failed" ? "failed" : ""), cell(time(m.sentAt))
          ]), 7, "no message yet");
          fill("flows", state.flows.map(f => [
            cell(f.provider), cell(f.destination, "mono"), cell(f.kind), cell(time(f.expiresAt)), cell(f.wrongAttempts)
          ]), 5, "no pending flow");
          fill("sessions", state.sessions.map(s => [
            cell(s.provider), cell(s.userID, "mono"), cell(s.destination || "", "mono"), cell(s.revoked ? "revoked" : "live")
          ]), 4, "no session issued");
          const faultRows = state.faults.map(f => {
            const remove = document.createElement("td");
            if (f.id) {
              const button = document.createElement("button");
              button.textContent = "remove";
              button.addEventListener("click", () => act(() => call("DELETE", "/faults/" + f.id)));
              remove.appendChild(button);
            }
            const where = [f.host, f.pathPrefix, f.destination].filter(x => x).join(" ");
            return [cell(f.id || ""), cell(f.type), cell(f.detail || (f.seconds + " s")), cell(where || "everywhere", "mono"), remove];
          }).concat(state.scenarios.map(s => [
            cell(""), cell("scenario"), cell(s.scenario), cell(s.destination, "mono"), cell("")
          ]));
          fill("faults", faultRows, 5, "no fault or scenario");
          fill("requests", state.requests.map(r => [
            cell(r.index), cell(r.method), cell(r.host), cell(r.path, "mono"), cell(r.outcome)
          ]), 5, "no request yet");
        }
        async function refresh() {
          try {
            render(await call("GET", "/state"));
            document.getElementById("status").textContent = "live";
          } catch (error) {
            document.getElementById("status").textContent = "server unreachable (" + error.message + ")";
          }
        }
        async function act(action) {
          try { await action(); } catch (error) { document.getElementById("status").textContent = error.message; }
          await refresh();
        }
        for (const button of document.querySelectorAll("[data-advance]")) {
          button.addEventListener("click", () => act(() => call("POST", "/clock/advance", {seconds: Number(button.dataset.advance)})));
        }
        document.getElementById("advance").addEventListener("click", () => act(() =>
          call("POST", "/clock/advance", {seconds: Number(document.getElementById("advance-seconds").value)})));
        document.getElementById("reset").addEventListener("click", () => act(() => call("POST", "/reset")));
        document.getElementById("clear-faults").addEventListener("click", () => act(() => call("DELETE", "/faults")));
        refresh();
        setInterval(refresh, 1000);
        </script>
        </body>
        </html>
        """#
}
