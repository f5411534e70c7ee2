// O Chromium do Debian, sem rede: só 127.0.0.1 passa (prova de que o site roda offline).
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
  // O Chromium 156 sem janela ainda abre o menu da barra de endereço (uma página WebUI, num
  // processo à parte) a cada página nova: ~1 s de CPU que disputava os 2 núcleos com o livro.
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
  // Sem DNS para nada além de 127.0.0.1: vale também para os pedidos dos workers.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"];

// Sem o Chromium, uma frase que diz o que fazer, em vez do erro do Playwright.
function conferir() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Falta o Chromium em ${CHROMIUM}: rode make chromium (instala o pacote 'chromium') ` +
      "ou aponte CHROMIUM=/caminho/do/chromium.");
  }
}

export function launch() {
  conferir();
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

// Um navegador com perfil em disco (o do leitor de verdade): só nele o cache HTTP guarda um
// arquivo do tamanho do .wasm (num contexto sem perfil, o cache fica na memória e o recusa).
export function launchComPerfil(pasta) {
  conferir();
  return chromium.launchPersistentContext(pasta, { executablePath: CHROMIUM, args: ARGS, headless: true });
}

// Cada página nova: aborta todo pedido que não seja para 127.0.0.1 e anota quais foram.
export async function bloquearRede(contexto, bloqueados = []) {
  await contexto.route(
    (url) => !["127.0.0.1"].includes(url.hostname) && !url.protocol.startsWith("data") && url.protocol !== "blob:",
    (rota) => { bloqueados.push(rota.request().url()); return rota.abort(); });
  return bloqueados;
}

// Rola até o elemento (um locator), como o leitor rolaria. Dentro de uma seção ainda sem
// desenho (content-visibility: auto, no livro.css), o Chromium calcula a rolagem com a altura
// provisória da seção; desenhada a seção, a rolagem seguinte acerta. Rola até o elemento estar
// na tela (no máximo 10 vezes).
export async function rolarAte(loc) {
  await loc.evaluate(async (el) => {
    const quadro = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
    for (let i = 0; i < 10; i++) {
      el.scrollIntoView({ block: "center" });
      await quadro();
      await quadro();
      const r = el.getBoundingClientRect();
      if (r.bottom > 0 && r.top < innerHeight) return;
    }
  });
}
