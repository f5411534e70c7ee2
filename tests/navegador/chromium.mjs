// O Chromium do Debian, sem rede: só 127.0.0.1 passa (prova de que o site roda offline).
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
  // Sem DNS para nada além de 127.0.0.1: vale também para os pedidos dos workers.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"];

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

// Cada página nova: aborta todo pedido que não seja para 127.0.0.1 e anota quais foram.
export async function bloquearRede(contexto, bloqueados = []) {
  await contexto.route(
    (url) => !["127.0.0.1"].includes(url.hostname) && !url.protocol.startsWith("data") && url.protocol !== "blob:",
    (rota) => { bloqueados.push(rota.request().url()); return rota.abort(); });
  return bloqueados;
}
