// Os widgets no site construído, num Chromium sem rede (só 127.0.0.1).
//
// Precisa do site pronto (make book; ou LIVRO_HTML=pasta). Cada widget: carrega o
// Python, responde igual ao CPython (tests/navegador/esperado.py calcula a
// referência na hora), trata entrada ruim com mensagem, funciona no teclado; nenhum
// erro de JavaScript nosso no console. Fotos (desktop e celular) numa pasta temporária.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { servir } from "./servidor.mjs";
import { launch, launchComPerfil, bloquearRede, rolarAte } from "./chromium.mjs";

const RAIZ = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HTML = resolve(process.env.LIVRO_HTML || join(RAIZ, "_build", "html"));
const PYTHON = process.env.PYTHON || join(RAIZ, ".venv", "bin", "python");
const FOTOS = mkdtempSync(join(tmpdir(), "livro-widgets-"));
const ESPERA = 90_000; // carregar o Pyodide numa máquina ocupada

// Mensagens do tema (sphinx-book-theme / pydata), não dos widgets: não contam como erro nosso.
const DO_TEMA = [/THEBE_JS_URL/, /invalid theme mode/i];

let navegador, servidor, contexto;
const paginas = new Map(); // widget -> caminho da página
const bloqueados = [];
let ref;

function acharPaginas(pasta) {
  for (const nome of readdirSync(pasta, { withFileTypes: true })) {
    const p = join(pasta, nome.name);
    if (nome.isDirectory()) { if (!nome.name.startsWith("_")) acharPaginas(p); continue; }
    if (!nome.name.endsWith(".html")) continue;
    for (const m of readFileSync(p, "utf8").matchAll(/class="livro-widget" data-widget="([^"]+)"/g)) {
      if (!paginas.has(m[1])) paginas.set(m[1], relative(HTML, p).split("\\").join("/"));
    }
  }
}

// Os pedidos que os cenários fazem, na ordem; o CPython responde todos de uma vez.
const PEDIDOS = {
  tokens_frase: { widget: "tokens", campos: { texto: "o gato subiu no telhado." } },
  tokens_fora: { widget: "tokens", campos: { texto: "o cachorro subiu" } },
  tokens_vazio: { widget: "tokens", campos: { texto: "" } },
  tokens_teclado: { widget: "tokens", campos: { texto: "o gato" } },
  emb: { widget: "embeddings", campos: { token: "2", posicao: "2" } },
  qkv_linha1: { widget: "qkv", campos: { linha: "1" }, acao: "linha" },
  qkv_letra: { widget: "qkv", campos: { x1: "abc" } },
  qkv_vazio: { widget: "qkv", campos: { x2: "" } },
  masc: { widget: "mascaras", campos: { causal: false, cabeca: "2" } },
  bloco_x10: { widget: "bloco", acao: "caso:linha2x10" },
  bloco_ultimo: { widget: "bloco", acao: "caso:ultimo" },
  bloco_sem: { widget: "bloco", acao: "caso:sem_atencao" },
  bloco_letra: { widget: "bloco", campos: { x11: "a" } },
  bloco_vazio: { widget: "bloco", campos: { x34: "" } },
  saida_sem: { widget: "saida", campos: { atencao: false } },
  saida_com: { widget: "saida", campos: { atencao: true } },
  saida_sofa_sem: { widget: "saida", campos: { frase: "o sofá subiu no", atencao: false } },
  saida_fora: { widget: "saida", campos: { frase: "o cachorro subiu no", atencao: false } },
  prox_T0: { widget: "proximo", campos: { T: "0" } },
  prox_p0: { widget: "proximo", campos: { top_p: "0" } },
  prox_k13: { widget: "proximo", campos: { k: "13" } },
  prox_letra: { widget: "proximo", campos: { u: "meio" } },
  prox_vazio: { widget: "proximo", campos: { T: "" } },
  cfg_2017: { widget: "config-bloco", acao: "preset:2017" },
  cfg_mha: { widget: "config-bloco", campos: { atencao: "mha" } },
  comp_inf: { widget: "compute", campos: { inferencia: true } },
  comp_C: { widget: "compute", campos: { logC: "23.5" } },
};

before(async () => {
  assert.ok(existsSync(join(HTML, "_static", "widgets", "widgets.js")),
    `site sem widgets em ${HTML}: rode \`make book\` (ou defina LIVRO_HTML)`);
  assert.ok(existsSync(join(HTML, "_static", "pyodide", "pyodide.asm.wasm")),
    `falta o runtime do Python em ${HTML}: rode python -m livro_ext.widgets.pos_build _build/html`);
  acharPaginas(HTML);
  const nomes = Object.keys(PEDIDOS);
  const saida = execFileSync(PYTHON, [join(RAIZ, "tests", "navegador", "esperado.py")],
    { input: JSON.stringify({ pedidos: nomes.map((n) => PEDIDOS[n]) }), encoding: "utf8" });
  const { respostas, fatos } = JSON.parse(saida);
  ref = { fatos, r: Object.fromEntries(nomes.map((n, i) => [n, respostas[i]])) };
  servidor = await servir(HTML);
  navegador = await launch();
  contexto = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  await bloquearRede(contexto, bloqueados);
});

after(async () => {
  await navegador?.close();
  await servidor?.fechar();
  console.log(`# fotos dos widgets em ${FOTOS}`);
});

// ---------------------------------------------------------------------------
async function abrir(nome, { ctx = contexto, srv = servidor } = {}) {
  const pg = await ctx.newPage();
  const erros = [];
  pg.on("console", (m) => { if (m.type() === "error") erros.push(m.text()); });
  pg.on("pageerror", (e) => erros.push(`pageerror: ${e.message}`));
  await pg.goto(srv.url + paginas.get(nome));
  const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
  return { pg, w, erros };
}

async function pronto(pg, w) {
  await rolarAte(w);
  await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
    { timeout: ESPERA });
  assert.equal(await w.locator(".lw-status").getAttribute("data-tipo"), "pronto",
    await w.locator(".lw-status").textContent());
  assert.match(await w.locator(".lw-status").textContent(), /Pronto/);
  await sossegar(w);
}

async function sossegar(w) {
  await w.page().waitForFunction((el) => el.dataset.ocupado === "0", await w.elementHandle(), { timeout: 10_000 });
}

// O texto que o leitor lê, sem diferença de espaços.
async function textoSaida(w) {
  return w.locator(".lw-saida").evaluate((el) => el.textContent.replace(/\s+/g, " ").trim());
}

async function textoDe(pg, html) {
  return pg.evaluate((h) => {
    const t = document.createElement("template");
    t.innerHTML = h;
    return t.content.textContent.replace(/\s+/g, " ").trim();
  }, html);
}

async function confere(w, chave) {
  await sossegar(w);
  const esperado = ref.r[chave];
  if (esperado.erro) {
    const e = w.locator(".lw-erro");
    assert.equal(await e.isVisible(), true, `${chave}: a mensagem de erro não apareceu`);
    assert.equal((await e.textContent()).trim(), esperado.erro, chave);
  } else {
    assert.equal(await w.locator(".lw-erro").isVisible(), false, `${chave}: erro inesperado ` +
      await w.locator(".lw-erro").textContent());
    assert.equal(await textoSaida(w), await textoDe(w.page(), esperado.html), chave);
  }
}

// Um handler do tema na captura do document (como os do Bootstrap): que cliques de dentro dos
// widgets chegam até ele? Devolve uma função que lê a lista (o widgets.js para os cliques nos
// controles dos widgets já na captura em window: ela tem de ficar vazia).
async function vigiarTema(pg) {
  await pg.evaluate(() => {
    globalThis.__noTema = [];
    document.addEventListener("click", (ev) => {
      if (ev.target.closest?.(".livro-widget")) globalThis.__noTema.push(ev.target.name || ev.target.dataset.acao);
    }, true);
  });
  return () => pg.evaluate(() => globalThis.__noTema);
}

const nRespostas = (pg) => pg.evaluate(() => globalThis.livroWidgets.medidas.respostas.length);

async function fotos(pg, w, nome) {
  // Janela alta: a foto do widget sai inteira, sem o cabeçalho fixo do tema por cima.
  await pg.evaluate(() => document.activeElement?.blur());
  const alta = async (largura) => {
    await pg.setViewportSize({ width: largura, height: 900 });
    const h = await w.evaluate((el) => el.getBoundingClientRect().height);
    await pg.setViewportSize({ width: largura, height: Math.ceil(h) + 200 });
  };
  await alta(1280);
  await rolarAte(w);
  await w.screenshot({ path: join(FOTOS, `${nome}-desktop.png`) });
  await alta(390);
  // Depois de estreitar a janela, o Chromium pode deixar um contêiner rolado de lado.
  await pg.evaluate(() => {
    document.activeElement?.blur();
    for (const e of document.querySelectorAll("*")) if (e.scrollLeft) e.scrollLeft = 0;
  });
  await rolarAte(w);
  await w.screenshot({ path: join(FOTOS, `${nome}-celular.png`) });
  const larguraExtra = await pg.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(larguraExtra <= 1, `${nome}: a página rola de lado no celular (${larguraExtra} px)`);
  await pg.setViewportSize({ width: 1280, height: 900 });
}

function semErrosNossos(erros) {
  assert.deepEqual(erros.filter((e) => !DO_TEMA.some((r) => r.test(e))), []);
}

async function comWidget(nome, corpo) {
  if (!paginas.has(nome)) throw new Error(`nenhuma página do site tem o widget ${nome}`);
  const { pg, w, erros } = await abrir(nome);
  try {
    const build = await textoSaida(w);
    await pronto(pg, w);
    // O Python do navegador refaz o estado inicial: tem de bater com o do build.
    assert.equal(await textoSaida(w), build, "o Pyodide e o build discordam no estado inicial");
    await corpo(pg, w);
    await fotos(pg, w, nome);
    semErrosNossos(erros);
  } finally {
    await pg.close();
  }
}

// ---------------------------------------------------------------------------
test("cada widget do livro está em alguma página", () => {
  const faltam = ref.fatos.widgets.filter((n) => !paginas.has(n));
  assert.deepEqual(faltam, [], `sem página: ${faltam.join(", ")}`);
});

test("tokens: frase, palavra fora do vocabulário, vazio, teclado", async () => {
  await comWidget("tokens", async (pg, w) => {
    const campo = w.locator("[name=texto]");
    await campo.fill("o gato subiu no telhado.");
    await confere(w, "tokens_frase");
    await campo.fill("o cachorro subiu");
    await confere(w, "tokens_fora");
    await campo.fill("");
    await confere(w, "tokens_vazio");
    // Teclado: Tab do campo vai ao botão; Enter no campo envia.
    await campo.focus();
    await pg.keyboard.type("o gato");
    await pg.keyboard.press("Tab");
    assert.equal(await pg.evaluate(() => document.activeElement.textContent), "Tokenizar");
    await pg.keyboard.press("Enter");
    await confere(w, "tokens_teclado");
  });
});

test("embeddings: escolher token e posição", async () => {
  await comWidget("embeddings", async (pg, w) => {
    await w.locator("[name=token]").selectOption("2");
    await w.locator("[name=posicao]").selectOption("2");
    await confere(w, "emb");
  });
});

test("qkv: trocar a linha, letras e vazio", async () => {
  await comWidget("qkv", async (pg, w) => {
    await w.locator("[name=linha]").selectOption("1");
    await confere(w, "qkv_linha1");
    await w.locator("[name=x1]").fill("abc");
    await confere(w, "qkv_letra");
    await w.locator("[name=x1]").fill("-1");
    await w.locator("[name=x2]").fill("");
    await confere(w, "qkv_vazio");
  });
});

test("máscaras: sem máscara, cabeça 2 (pelo teclado)", async () => {
  await comWidget("mascaras", async (pg, w) => {
    await w.locator("[name=causal]").focus();
    await pg.keyboard.press("Space");
    await sossegar(w);
    await pg.keyboard.press("Tab");
    await pg.keyboard.press("ArrowRight"); // rádio: a seta escolhe a cabeça 2
    await confere(w, "masc");
  });
});

test("bloco: avançar linha a linha, os três casos, x com letra ou vazio, teclado", async () => {
  await comWidget("bloco", async (pg, w) => {
    const noTema = await vigiarTema(pg);
    const visiveis = () => w.locator(".lw-passo:visible").count();
    assert.equal(await visiveis(), 1);
    await w.locator("[data-acao=avancar]").click();
    await sossegar(w);
    assert.equal(await visiveis(), 2);
    // Teclado: Tab de «Voltar» leva a «Avançar»; Enter e Espaço avançam.
    await w.locator("[data-acao=voltar]").focus();
    await pg.keyboard.press("Tab");
    assert.equal(await pg.evaluate(() => document.activeElement.dataset.acao), "avancar");
    await pg.keyboard.press("Enter");
    await sossegar(w);
    await pg.keyboard.press("Space");
    await sossegar(w);
    assert.equal(await visiveis(), 4);
    await w.locator("[data-acao=tudo]").click();
    await sossegar(w);
    assert.equal(await visiveis(), 9);
    assert.match(await textoSaida(w), /A₃ = softmax\(S₃\)/);
    await w.locator('[data-acao="caso:linha2x10"]').click();
    await confere(w, "bloco_x10");
    await w.locator('[data-acao="caso:ultimo"]').click();
    await confere(w, "bloco_ultimo");
    await w.locator('[data-acao="caso:sem_atencao"]').click();
    await confere(w, "bloco_sem");
    await w.locator('[data-acao="caso:base"]').click();
    await sossegar(w);
    // 8 cliques nos botões (2 pelo teclado): nenhum chegou aos handlers do tema
    assert.deepEqual(await noTema(), [], "um clique num botão do widget chegou aos handlers do tema");
    await w.locator("[name=x11]").fill("a");
    await confere(w, "bloco_letra");
    await w.locator("[name=x11]").fill("-1");
    await w.locator("[name=x34]").fill("");
    await confere(w, "bloco_vazio");
  });
});

test("saída: sem temperatura (é do passo 7); com e sem atenção; outro prompt; palavra fora do vocabulário", async () => {
  await comWidget("saida", async (pg, w) => {
    assert.equal(await w.locator("[name=T]").count(), 0, "o passo 6 não tem campo de temperatura");
    await w.locator("[name=atencao]").uncheck();
    await confere(w, "saida_sem");
    await w.locator("[name=atencao]").check();
    await confere(w, "saida_com");
    // outro prompt e o ramo de atenção desligado; depois uma palavra fora do vocabulário
    await w.locator("[name=frase]").fill("o sofá subiu no");
    await w.locator("[name=atencao]").uncheck();
    await confere(w, "saida_sofa_sem");
    await w.locator("[name=frase]").fill("o cachorro subiu no");
    await confere(w, "saida_fora");
  });
});

test("caixa de seleção: o pedido sai no clique, sem passar pelos handlers do tema, um por clique; um menu aberto fecha; um clique cancelado volta ao estado de antes", async () => {
  await comWidget("saida", async (pg, w) => {
    const noTema = await vigiarTema(pg);
    const caixa = w.locator("[name=atencao]");
    const n0 = await nRespostas(pg);
    // o menu de baixar a página aberto: um clique no widget o fecha, como um clique fora dele
    const menu = pg.locator('[data-bs-toggle="dropdown"]').first();
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await caixa.uncheck();
    await confere(w, "saida_sem");
    assert.equal(await menu.getAttribute("aria-expanded"), "false", "o menu aberto não fechou com o clique no widget");
    assert.equal(await nRespostas(pg), n0 + 1, "um clique, um pedido (o input do mesmo clique não pede de novo)");
    // Um handler na captura de window cancela o próximo clique: a marca volta, e um segundo
    // pedido refaz o estado de antes.
    await pg.evaluate(() => addEventListener("click", (ev) => ev.preventDefault(), { capture: true, once: true }));
    await caixa.click();
    await pg.waitForFunction((n) => globalThis.livroWidgets.medidas.respostas.length >= n, n0 + 3, { timeout: 10_000 });
    assert.equal(await caixa.isChecked(), false);
    await confere(w, "saida_sem");
    await pg.waitForTimeout(100);
    assert.equal(await nRespostas(pg), n0 + 3, "o clique cancelado: o pedido do clique e o que desfaz");
    await caixa.check();
    await confere(w, "saida_com");
    assert.deepEqual(await noTema(), [], "um clique na caixa do widget chegou aos handlers do tema");
  });
});

test("próximo token: padrão do curso, anexar com cache de KV, u = 0,8, até <|endoftext|>, entradas ruins", async () => {
  await comWidget("proximo", async (pg, w) => {
    const escolhido = () => w.locator(".lw-escolhido th").textContent();
    assert.equal(await escolhido(), ref.fatos.curso);
    await w.locator("[data-acao=anexar]").click();
    await sossegar(w);
    const chips = w.locator(".lw-tokens .lw-token-texto");
    assert.equal(await chips.count(), ref.fatos.tokens_prompt.length + 1);
    assert.equal(await chips.last().textContent(), ref.fatos.curso);
    assert.match(await w.locator(".lw-cache").textContent(), /1 linha nova/);
    await w.locator("[data-acao=recomecar]").click();
    await w.locator('[data-acao="preset:u08"]').click();
    await sossegar(w);
    assert.equal(await escolhido(), ref.fatos.u08);
    // Guloso até parar: o mesmo texto que b.gerar dá no CPython.
    await w.locator('[data-acao="preset:guloso"]').click();
    const anexar = w.locator("[data-acao=anexar]");
    for (let i = 0; i < 8 && await anexar.isEnabled(); i++) {
      await anexar.click();
      await sossegar(w);
    }
    assert.equal(await anexar.isEnabled(), false);
    // O botão desligado diz por que parou: n_ctx cheio ou <|endoftext|>.
    assert.match(await anexar.textContent(), ref.fatos.guloso_para_em_eot ? /endoftext/ : /n_ctx/);
    assert.match(await textoSaida(w), new RegExp(`«${ref.fatos.guloso_texto.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}»`));
    if (ref.fatos.guloso_para_em_eot) assert.match(await textoSaida(w), /<\|endoftext\|>: a geração para/);
    await w.locator("[data-acao=recomecar]").click();
    await w.locator('[data-acao="preset:padrao"]').click();
    await sossegar(w);
    const campo = (n) => w.locator(`[name=${n}]`);
    for (const [nome, valor, chave] of [["T", "0", "prox_T0"], ["top_p", "0", "prox_p0"], ["k", "13", "prox_k13"],
      ["u", "meio", "prox_letra"], ["T", "", "prox_vazio"]]) {
      await w.locator('[data-acao="preset:padrao"]').click();
      await sossegar(w);
      await campo(nome).fill(valor);
      await confere(w, chave);
    }
  });
});

test("próximo token: anexar três vezes com um u diferente a cada passo dá os tokens de brinquedo.gerar", async () => {
  await comWidget("proximo", async (pg, w) => {
    const g = ref.fatos.geracao;
    const campo = (n) => w.locator(`[name=${n}]`);
    const virgula = (x) => String(x).replace(".", ",");
    await campo("T").fill(virgula(g.T));
    await campo("k").fill("");
    await campo("top_p").fill(virgula(g.top_p));
    const anexar = w.locator("[data-acao=anexar]");
    for (const [n, u] of g.us.entries()) {
      if (!await anexar.isEnabled()) break;
      await campo("u").fill(virgula(u));
      await sossegar(w);
      await anexar.click();
      await sossegar(w);
      const chips = w.locator(".lw-tokens .lw-token-texto");
      assert.equal(await chips.count(), ref.fatos.tokens_prompt.length + n + 1);
      assert.equal(await chips.last().textContent(), g.tokens[n], `passo ${n + 1}`);
    }
    await w.locator("[data-acao=recomecar]").click();
    await sossegar(w);
  });
});

test("configure o bloco: 2017 e MHA", async () => {
  await comWidget("config-bloco", async (pg, w) => {
    await w.locator('[data-acao="preset:2017"]').click();
    await confere(w, "cfg_2017");
    await w.locator('[data-acao="preset:2026"]').click();
    await sossegar(w);
    await w.locator("[name=atencao]").selectOption("mha");
    await confere(w, "cfg_mha");
  });
});

test("reparta o compute: inferência e a faixa do compute no teclado", async () => {
  await comWidget("compute", async (pg, w) => {
    await w.locator("[name=inferencia]").check();
    await confere(w, "comp_inf");
    await w.locator("[name=inferencia]").uncheck();
    await sossegar(w);
    await w.locator("[name=logC]").focus();
    await pg.keyboard.press("ArrowRight");
    await confere(w, "comp_C");
  });
});

test("nenhum pedido saiu de 127.0.0.1", () => {
  assert.deepEqual(bloqueados, []);
});

// ---------------------------------------------------------------------------
// Quando não dá: sem JavaScript, aberto como arquivo, .wasm com tipo errado, carga que trava.
const umaPagina = () => paginas.get("tokens") || paginas.values().next().value;
const nomeDe = (pagina) => [...paginas].find(([, p]) => p === pagina)[0];

test("sem JavaScript, o widget mostra os números da construção do livro", async () => {
  const ctx = await navegador.newContext({ javaScriptEnabled: false });
  try {
    const pg = await ctx.newPage();
    await pg.goto(servidor.url + umaPagina());
    const texto = await pg.locator(".livro-widget .lw-saida").first().textContent();
    assert.match(texto, /\d/);
    const status = await pg.locator(".livro-widget .lw-status").first().textContent();
    assert.match(status, /construção do livro/);
    assert.doesNotMatch(status, /\bbuild\b/);
  } finally {
    await ctx.close();
  }
});

test("aberto como arquivo (file://): mensagem clara", async () => {
  const ctx = await navegador.newContext();
  try {
    const pg = await ctx.newPage();
    await pg.goto(pathToFileURL(join(HTML, umaPagina())).href);
    const status = pg.locator(".livro-widget .lw-status").first();
    await pg.waitForFunction(() => document.querySelector(".lw-status")?.textContent.includes("aberta como arquivo"));
    const texto = await status.textContent();
    // O que o leitor pode fazer (o site publicado, um servidor), sem comando de desenvolvedor nem crases.
    assert.match(texto, /site publicado/);
    assert.match(texto, /servidor local/);
    assert.doesNotMatch(texto, /`|make |127\.0\.0\.1|\bbuild\b/);
  } finally {
    await ctx.close();
  }
});

test("servidor que manda o .wasm como text/plain: o Python carrega mesmo assim, sem culpar o tipo", async () => {
  // O worker monta o .wasm dos pedaços gzip e o entrega com o tipo certo: o tipo do servidor não importa.
  const srv = await servir(HTML, { tipos: { ".wasm": "text/plain", ".gz": "text/plain" } });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await pronto(pg, w);
    assert.doesNotMatch(await w.locator(".lw-status").textContent(), /application\/wasm/);
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

test("rede que para: desiste depois do tempo sem bytes e diz por quê; a rede volta e a recarga carrega", async () => {
  const pendurar = [/\.wasm\.gz\.\d+$/];
  const srv = await servir(HTML, { pendurar });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { paradoMs: 3000 }; });
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await rolarAte(w);
    await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "falhou", null, { timeout: 30_000 });
    const status = await w.locator(".lw-status").textContent();
    assert.match(status, /A rede parou: nenhum byte em 3 s/);
    assert.match(status, /Recarregue/);
    assert.doesNotMatch(status, /application\/wasm/);
    // Sem Python, o bloco mostra todas as linhas do build e os controles ficam desligados.
    assert.equal(await w.locator("form button, form input").first().isDisabled(), true);
    // O worker compartilhado que falhou se fechou: com a rede de volta, a recarga abre outro,
    // que carrega (em vez de repetir a falha do antigo).
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.compartilhado), true);
    pendurar.length = 0;
    await pg.reload();
    await pronto(pg, pg.locator(".livro-widget").first());
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.reutilizado), false);
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

// Um celular numa rede lenta: 200 KB/s divididos entre todas as conexões.
const LENTA = 200 * 1024;

test("rede lenta (200 KB/s): mostra o progresso e não desiste enquanto os bytes chegam", async () => {
  const srv = await servir(HTML, { taxa: LENTA });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await rolarAte(w);
    await pg.waitForFunction(() => /MiB \(\d+%\)/.test(document.querySelector(".lw-status").textContent),
      null, { timeout: 20_000 });
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
      { timeout: 180_000 });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "pronto",
      await w.locator(".lw-status").textContent());
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.ok(m.progresso.length >= 10, `só ${m.progresso.length} avisos de progresso`);
    const ultimo = m.progresso.at(-1);
    assert.equal(ultimo.rede + ultimo.cache, ultimo.total);
    // Mais que os 30 s de antes: a carga lenta passa do antigo limite fixo? Só conta que terminou.
    assert.ok(m.pronto - m.inicio > 10_000, "a rede lenta foi rápida demais para valer como teste");
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

// Dois caminhos: o worker compartilhado (SharedWorker, o do Chromium) segue a mesma carga depois
// de uma recarga; um Worker comum (compartilhado: false, o de um navegador sem SharedWorker, ou
// quando o Chromium já fechou o compartilhado) recomeça e continua do que o Cache API guardou.
async function recarregarNoMeio(compartilhado) {
  const srv = await servir(HTML, { taxa: 4 * LENTA });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((c) => { globalThis.LIVRO_WIDGETS = { compartilhado: c }; }, compartilhado);
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx, srv });
    await rolarAte(w);
    // Espera metade chegar e recarrega.
    await pg.waitForFunction(() => {
      const p = globalThis.livroWidgets?.medidas.progresso.at(-1);
      return p && p.rede > 0.5 * p.total;
    }, null, { timeout: 60_000 });
    // Só os bytes do runtime pedidos depois da recarga (a página, o tema e o MathJax também
    // vêm de novo; os pedidos antigos, cortados no meio, não contam).
    const recarga = performance.now();
    const runtime = () => srv.enviados.lista.filter((r) => r.inicio > recarga && r.caminho.startsWith("/_static/pyodide/"))
      .reduce((s, r) => s + r.bytes, 0);
    await pg.reload();
    await rolarAte(pg.locator(".livro-widget").first());
    await pg.waitForFunction(() => ["pronto", "falhou"].includes(globalThis.livroWidgets?.estado()), null,
      { timeout: 120_000 });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "pronto");
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.compartilhado, compartilhado);
    const total = m.progresso.at(-1).total;
    if (compartilhado) {
      // a página nova entrou na carga que já estava andando: nenhum arquivo do runtime foi
      // pedido duas vezes (o manifesto, que cada carga da página relê, não conta)
      const pedidos = srv.enviados.lista.map((r) => r.caminho)
        .filter((c) => c.startsWith("/_static/pyodide/") && !c.endsWith("/manifesto.json"));
      assert.deepEqual(pedidos.filter((c, i) => pedidos.indexOf(c) !== i), [], "arquivos pedidos duas vezes");
      assert.equal(m.reutilizado, false);
      assert.ok(runtime() < 0.6 * total, `depois da recarga vieram ${runtime()} de ${total} bytes`);
    } else {
      // Perde-se no máximo o que estava a meio caminho (2 pedidos de 512 KiB).
      assert.ok(m.bytes.cache > 0.25 * total, `só ${m.bytes.cache} de ${total} bytes vieram do cache`);
      assert.ok(m.bytes.rede < 0.75 * total, `${m.bytes.rede} de ${total} bytes baixados de novo`);
      assert.ok(runtime() < 0.75 * total, `a recarga baixou de novo ${runtime()} de ${total} bytes`);
    }
  } finally {
    await ctx.close();
    await srv.fechar();
  }
}

test("recarregar no meio da carga, com o worker compartilhado: a mesma carga segue e nada vem duas vezes", () =>
  recarregarNoMeio(true));

test("recarregar no meio da carga, com um Worker comum: continua do que já chegou (Cache API)", () =>
  recarregarNoMeio(false));

// A memória do Python guardada no Cache API pelo worker (o instantâneo): bytes, ou 0 se não há.
// Espera até 20 s que ela apareça (o worker a guarda logo depois do "pronto"); com `marca`, só
// conta uma cujo último byte é outro (a estragada de propósito tem esse byte trocado).
async function memoriaGuardada(pg, marca = null) {
  return pg.evaluate(async (marca) => {
    const fim = performance.now() + 20_000;
    for (;;) {
      const c = await caches.open("livro-runtime");
      const k = (await c.keys()).find((r) => r.url.includes("/pyodide/memoria?v="));
      if (k) {
        const v = new Uint8Array(await (await c.match(k)).arrayBuffer());
        if (marca === null || v[v.length - 1] !== marca) return v.length;
      }
      if (performance.now() > fim) return 0;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }, marca);
}

// A segunda página, por dois caminhos: com o worker compartilhado, o Python da primeira ainda
// está vivo e só os widgets dela aquecem; com um Worker comum, o runtime vem do Cache API e o
// Python, do instantâneo da memória que a primeira guardou.
async function segundaPagina(compartilhado) {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((c) => { globalThis.LIVRO_WIDGETS = { compartilhado: c }; }, compartilhado);
    const nomes = [...paginas.keys()];
    const a = await abrir(nomes[0], { ctx });
    await pronto(a.pg, a.w);
    // a primeira página, fria, não parte nada no <head>: só quando o widget aparece
    assert.equal(await a.pg.evaluate(() => globalThis.livroWidgets.medidas.partida), "widgets.js");
    await a.pg.waitForFunction(() => globalThis.livroWidgets.medidas.bytecode, null, { timeout: ESPERA });
    const ma = await a.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(ma.bytecode.erro, undefined);
    assert.equal(ma.compartilhado, compartilhado);
    assert.equal(ma.reutilizado, false);
    assert.equal(ma.memoria, "sem", "a primeira carga achou uma memória guardada num navegador novo");
    assert.equal(ma.pacote.naMemoria, false);
    assert.equal(ma.runtime, "pedaços");
    assert.equal(ma.sozinho, false, "sem manifesto guardado, o worker da primeira página não esperou o iniciar");
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    // depois do "pronto", o worker esquenta cada widget da página mais VEZES vezes
    const wa = await esquentado(a.pg);
    assert.equal(wa.chamadas, VEZES * wa.widgets.length, "o worker não esquentou os widgets da página");
    await a.pg.close();
    const outro = nomes.find((n) => paginas.get(n) !== paginas.get(nomes[0]));
    const b = await abrir(outro, { ctx });
    const build = await textoSaida(b.w);
    await pronto(b.pg, b.w);
    const m = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.bytes.rede, 0, "a segunda página baixou o runtime de novo");
    // com o runtime guardado, o worker parte do <head> (livro_ext/widgets/partida.js),
    // antes de o HTML acabar de ser lido; widgets.js só o adota
    const dcl = await b.pg.evaluate(() => performance.getEntriesByType("navigation")[0].domContentLoadedEventStart);
    assert.equal(m.partida, "head", "o worker da segunda página não partiu do <head>");
    assert.ok(m.inicio < dcl, `o worker partiu em ${Math.round(m.inicio)} ms, depois do HTML lido (${Math.round(dcl)} ms)`);
    // o worker nasceu antes de o manifesto chegar (a versão veio do localStorage)
    const manifesto = await b.pg.evaluate(() => performance.getEntriesByType("resource")
      .find((r) => r.name.includes("/pyodide/manifesto.json"))?.responseEnd);
    assert.equal(m.antecipado, true, "o worker da segunda página esperou o manifesto");
    assert.ok(m.criado < manifesto, `o worker nasceu em ${Math.round(m.criado)} ms, depois do manifesto (${Math.round(manifesto)} ms)`);
    if (compartilhado) {
      // a primeira página já fechou, e o mesmo Python responde à segunda: nada recarregou
      assert.equal(m.worker, ma.worker, "a segunda página abriu outro worker");
      assert.equal(m.reutilizado, true);
      assert.ok(m.nasceu < 0, `o worker compartilhado começou a rodar em ${Math.round(m.nasceu)} ms, depois de a página abrir`);
      assert.deepEqual(Object.keys(m.fases), ["aquecido"]);
      assert.match(await b.w.locator(".lw-status").textContent(), /já estava carregado/);
    } else {
      assert.notEqual(m.worker, ma.worker);
      assert.equal(m.reutilizado, false);
      // o worker desta página começou a rodar depois de criado (1 ms de arredondamento dos relógios)
      assert.ok(m.nasceu >= m.criado - 1 && m.nasceu < m.pronto,
        `o worker criado em ${Math.round(m.criado)} ms começou a rodar em ${Math.round(m.nasceu)} ms (pronto em ${Math.round(m.pronto)} ms)`);
      assert.equal(m.bytes.cache, m.bytes.total, "a segunda página não leu o runtime do Cache API");
      assert.ok(m.fases.python > 0, "a segunda página não iniciou o Python dela");
      assert.equal(m.memoria, "usado", "a segunda página não restaurou a memória guardada do Python");
      // a memória guardada já trazia os módulos do livro importados: o "pronto" sai antes de a
      // roda ser instalada, e o loadPackage a instala (e registra) quando o leitor para de mexer
      assert.equal(m.pacote.naMemoria, true, "a memória restaurada veio sem os módulos do livro");
      assert.deepEqual(m.pacote.instalados, [], "o worker instalou a roda antes do pronto, com o livro já na memória");
      assert.match(m.pacote.arquivo, /\/site-packages\/.+\.pyc$/, "os módulos da memória não vieram da roda");
      await b.pg.waitForFunction(() => globalThis.livroWidgets.medidas.instalado, null, { timeout: ESPERA });
      const depois = await b.pg.evaluate(() => globalThis.livroWidgets.medidas.pacote);
      assert.equal(depois.erro, undefined);
      assert.deepEqual(depois.instalados, [ma.pacote.nome], "a roda não foi instalada depois do pronto");
      assert.ok(depois.respostasAntes >= 1, "nenhum widget respondeu antes de a roda ser instalada");
      // o runtime veio já descomprimido, guardado pela primeira página
      assert.equal(m.runtime, "descomprimido", "a segunda página descomprimiu os pedaços de novo");
      // com o manifesto guardado junto, a carga pode ter começado antes do "iniciar" (quem chega
      // antes, a leitura do manifesto ou o pedido da página, varia; o teste abaixo fixa a ordem)
      assert.equal(typeof m.sozinho, "boolean");
    }
    assert.equal(await textoSaida(b.w), build, "na segunda página, o Python discorda do build");
    // o compartilhado só esquenta os widgets que a primeira página não tinha; um Worker novo, todos
    const wb = await esquentado(b.pg);
    const novos = compartilhado ? wb.widgets.filter((x) => !wa.widgets.includes(x)) : wb.widgets;
    assert.equal(wb.chamadas, VEZES * novos.length);
    semErrosNossos(b.erros);
    await b.pg.close();
  } finally {
    await ctx.close();
  }
}

// O número de vezes que o worker esquenta cada widget depois do "pronto" (worker.mjs).
const VEZES = Number(/const VEZES = (\d+);/.exec(readFileSync(join(HTML, "_static", "widgets", "worker.mjs"), "utf8"))[1]);

// Espera o worker terminar de esquentar os widgets da página; devolve as chamadas e os widgets dela.
async function esquentado(pg) {
  await pg.waitForFunction(() => globalThis.livroWidgets.medidas.esquentado, null, { timeout: ESPERA });
  return pg.evaluate(() => ({ chamadas: globalThis.livroWidgets.medidas.esquentado.chamadas,
    widgets: [...new Set([...document.querySelectorAll(".livro-widget")].map((w) => w.dataset.widget))] }));
}

test("segunda página, worker compartilhado: o Python da primeira responde, sem carregar de novo", () =>
  segundaPagina(true));

test("segunda página, Worker comum: o runtime vem do cache, o Python do bytecode guardado, e o worker começa no <head>", () =>
  segundaPagina(false));

test("worker compartilhado: duas abas (e uma recarga) têm cada uma o seu cache de KV", async () => {
  // O Python guarda o cache de KV pelo inst do widget. Com o mesmo inst nas duas abas, a segunda
  // acharia o cache do prompt da primeira e diria "nenhuma linha nova" logo ao abrir; a recarga
  // depois de «Recomeçar», idem. Nos dois casos a tela sairia diferente da do build.
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const n = ref.fatos.tokens_prompt.length;
    const chips = (w) => w.locator(".lw-tokens .lw-token-texto").count();
    const clicar = async (w, acao) => { await w.locator(`[data-acao=${acao}]`).click(); await sossegar(w); };
    const a = await abrir("proximo", { ctx });
    const build = await textoSaida(a.w);
    await pronto(a.pg, a.w);
    // a segunda aba, com a primeira aberta no prompt: o mesmo worker, o estado do build
    const b = await abrir("proximo", { ctx });
    await pronto(b.pg, b.w);
    const [ma, mb] = await Promise.all([a, b].map((x) => x.pg.evaluate(() => globalThis.livroWidgets.medidas)));
    assert.equal(mb.worker, ma.worker, "a segunda aba abriu outro worker");
    assert.equal(mb.reutilizado, true);
    assert.equal(await textoSaida(b.w), build, "a segunda aba herdou o cache de KV da primeira");
    await clicar(b.w, "anexar");
    await clicar(b.w, "anexar");
    assert.equal(await chips(b.w), n + 2);
    // a primeira aba segue do ponto dela: só a linha do token anexado é nova
    await clicar(a.w, "anexar");
    assert.equal(await chips(a.w), n + 1);
    assert.match(await a.w.locator(".lw-cache").textContent(), /1 linha nova/);
    // «Recomeçar» e recarregar: a carga nova volta ao estado do build, no mesmo worker
    await clicar(a.w, "recomecar");
    await a.pg.reload();
    const w2 = a.pg.locator('.livro-widget[data-widget="proximo"]').first();
    await pronto(a.pg, w2);
    assert.equal(await a.pg.evaluate(() => globalThis.livroWidgets.medidas.worker), ma.worker);
    assert.equal(await textoSaida(w2), build, "a recarga herdou o cache de KV da carga anterior");
    semErrosNossos([...a.erros, ...b.erros]);
  } finally {
    await ctx.close();
  }
});

test("um SharedWorker que falha ao abrir (um navegador sem módulos nele): a página segue com um Worker comum", async () => {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => {
      // um SharedWorker que nunca responde e avisa um erro logo depois de criado
      globalThis.SharedWorker = class {
        constructor() {
          this.port = { postMessage() {}, close() {}, onmessage: null };
          setTimeout(() => this.onerror?.(new Event("error")), 50);
        }
      };
    });
    const { pg, w, erros } = await abrir(nomeDe(umaPagina()), { ctx });
    const build = await textoSaida(w);
    await pronto(pg, w);
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.compartilhado), false);
    assert.equal(await textoSaida(w), build);
    semErrosNossos(erros);
  } finally {
    await ctx.close();
  }
});

test("o worker compartilhado morre com a página aberta: o próximo pedido abre outro worker e a resposta chega certa", async () => {
  const ctx = await navegador.newContext();
  const cdp = await navegador.newBrowserCDPSession();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { respostaMs: 3000 }; });
    const { pg, w, erros } = await abrir("tokens", { ctx });
    await pronto(pg, w);
    const antes = await pg.evaluate(() => globalThis.livroWidgets.medidas.worker);
    // o navegador fecha o worker (como na volta do cache de voltar/avançar depois de 5 min)
    const { targetInfos } = await cdp.send("Target.getTargets");
    const daPagina = targetInfos.find((x) => x.type === "page" && x.url === pg.url()); // o contexto deste teste
    assert.ok(daPagina, "não achei a página entre os alvos do navegador");
    const sw = targetInfos.filter((x) => x.type === "shared_worker" && x.url.includes("/_static/widgets/worker.mjs") &&
      x.browserContextId === daPagina.browserContextId);
    assert.equal(sw.length, 1, "não achei o worker compartilhado");
    await cdp.send("Target.closeTarget", { targetId: sw[0].targetId });
    await w.locator("[name=texto]").fill(PEDIDOS.tokens_teclado.campos.texto);
    await confere(w, "tokens_teclado");
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.reaberturas, 1);
    assert.notEqual(m.worker, antes);
    assert.equal(m.compartilhado, false, "reaberto como compartilhado: podia ser o mesmo worker travado");
    assert.match(await w.locator(".lw-status").textContent(), /Pronto/);
    semErrosNossos(erros);
  } finally {
    await cdp.detach();
    await ctx.close();
  }
});

test("um worker que nunca responde a tempo: duas tentativas e depois uma mensagem clara", async () => {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    // nenhum pedido responde em 0 ms: cada um conta como um worker morto
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { respostaMs: 0 }; });
    const { pg, w } = await abrir(nomeDe(umaPagina()), { ctx });
    await rolarAte(w);
    await pg.waitForFunction(() => globalThis.livroWidgets?.estado() === "falhou", null, { timeout: ESPERA });
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.reaberturas), 2);
    assert.match(await w.locator(".lw-status").textContent(), /parou de responder\. Recarregue a página/);
    assert.equal(await w.locator("form button, form input").first().isDisabled(), true);
  } finally {
    await ctx.close();
  }
});

// Um Worker comum num leitor que volta: cada carga abre a página, espera o "pronto", confere as
// respostas com as do build e devolve as medidas e a marca do .wasm no cache HTTP (worker.mjs);
// esperarMemoria: espera a memória do Python ser guardada (a 1ª carga); esperarHttp: espera o
// .wasm ir ao cache HTTP; depoisMs: fica mais esse tempo na página.
async function cargaQueVolta(ctx, srv, nome, { esperarMemoria = false, esperarHttp = false, depoisMs = 0 } = {}) {
  const c = await abrir(nome, { ctx, srv });
  const build = await textoSaida(c.w);
  await pronto(c.pg, c.w);
  assert.equal(await textoSaida(c.w), build, "o Python discorda do build");
  if (esperarMemoria) assert.ok(await memoriaGuardada(c.pg) > 1e6, "o worker não guardou a memória do Python");
  if (esperarHttp) {
    await c.pg.waitForFunction(() => globalThis.livroWidgets.medidas.wasmHttp, null, { timeout: ESPERA });
  }
  await c.pg.waitForTimeout(depoisMs);
  const m = await c.pg.evaluate(() => globalThis.livroWidgets.medidas);
  m.marca = await c.pg.evaluate(async () => {
    const cache = await caches.open("livro-runtime");
    const k = (await cache.keys()).find((r) => r.url.includes("/pyodide/cru/http?v="));
    return k ? (await cache.match(k)).text() : null;
  });
  semErrosNossos(c.erros);
  await c.pg.close();
  return m;
}

test("leitor que volta, Worker comum: o .wasm vai ao cache HTTP, conferido, e a carga seguinte compila dali; fora do cache HTTP, volta ao guardado e não busca de novo", async () => {
  const srv = await servir(HTML);
  const perfil = mkdtempSync(join(tmpdir(), "livro-perfil-"));
  const ctx = await launchComPerfil(perfil);
  try {
    // Sem bloquearRede: interceptar os pedidos (route) desliga o cache HTTP. A rede de fora já
    // não resolve (--host-resolver-rules, em chromium.mjs); aqui só se anota o que saiu.
    ctx.on("request", (r) => {
      const u = new URL(r.url());
      if (u.hostname !== "127.0.0.1" && !["data:", "blob:"].includes(u.protocol)) bloqueados.push(r.url());
    });
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = nomeDe(umaPagina());
    const wasm = "/_static/pyodide/pyodide.asm.wasm";
    const inteiro = () => srv.enviados.pedidos.filter((c) => c === wasm).length;
    // 1ª carga: os pedaços de gzip; o .wasm inteiro não é buscado
    const ma = await cargaQueVolta(ctx, srv, nome, { esperarMemoria: true });
    assert.equal(ma.wasm, "pedaços");
    assert.equal(inteiro(), 0, "a primeira carga buscou o .wasm inteiro além dos pedaços");
    // 2ª: o runtime guardado; depois do "pronto", o .wasm inteiro uma vez, conferido e marcado
    const mb = await cargaQueVolta(ctx, srv, nome, { esperarHttp: true });
    assert.equal(mb.wasm, "descomprimido");
    assert.equal(mb.wasmHttp.guardado, true, "o .wasm do cache HTTP não conferiu com o manifesto");
    assert.equal(mb.marca, "confere");
    assert.equal(inteiro(), 1);
    // 3ª: compila do cache HTTP, sem ir à rede (only-if-cached)
    const mc = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(mc.wasm, "http", "o wasm não compilou do cache HTTP");
    assert.equal(mc.bytes.rede, 0);
    assert.equal(inteiro(), 1, "a carga que compilou do cache HTTP foi à rede");
    // o cache HTTP esvaziado (pelo navegador, ou pelo leitor): a carga compila do guardado,
    // marca que faltou e não busca de novo (um navegador que não o guarda baixaria a cada carga)
    const cdp = await ctx.newCDPSession(await ctx.newPage());
    await cdp.send("Network.clearBrowserCache");
    const md = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(md.wasm, "descomprimido");
    assert.equal(md.marca, "faltou");
    const me = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(me.wasm, "descomprimido");
    assert.equal(inteiro(), 1, "o .wasm foi buscado de novo depois de sair do cache HTTP");
  } finally {
    await ctx.close();
    await srv.fechar();
    rmSync(perfil, { recursive: true, force: true });
  }
});

test("leitor que volta: um .wasm no cache HTTP que não confere com o manifesto não é usado nem buscado de novo", async () => {
  const reescrever = {};
  const srv = await servir(HTML, { reescrever });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = nomeDe(umaPagina());
    // um servidor que manda outro .wasm no endereço do inteiro (um CDN com o arquivo velho)
    reescrever["/_static/pyodide/pyodide.asm.wasm"] = (corpo) => {
      const b = Buffer.from(corpo);
      b[b.length - 1] ^= 0xff;
      return b;
    };
    const inteiro = () => srv.enviados.pedidos.filter((c) => c === "/_static/pyodide/pyodide.asm.wasm").length;
    await cargaQueVolta(ctx, srv, nome, { esperarMemoria: true });
    const mb = await cargaQueVolta(ctx, srv, nome, { esperarHttp: true });
    assert.equal(mb.wasmHttp.guardado, false, "um .wasm que não confere foi marcado");
    assert.equal(mb.marca, "faltou");
    const mc = await cargaQueVolta(ctx, srv, nome, { depoisMs: 2500 });
    assert.equal(mc.wasm, "descomprimido", "o wasm compilou de um cache HTTP que não conferiu");
    assert.equal(inteiro(), 1, "o .wasm que não conferiu foi buscado de novo");
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

test("site publicado de novo (outra versão no manifesto): a página abre outro worker, não o Python antigo", async () => {
  const reescrever = {};
  const srv = await servir(HTML, { reescrever });
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    const nome = nomeDe(umaPagina());
    const a = await abrir(nome, { ctx, srv });
    await pronto(a.pg, a.w);
    const ma = await a.pg.evaluate(() => globalThis.livroWidgets.medidas);
    await a.pg.close();
    // os mesmos arquivos, outra versão: como um deploy que só mudou o worker.mjs
    reescrever["/_static/pyodide/manifesto.json"] = (corpo) => {
      const m = JSON.parse(corpo);
      return JSON.stringify({ ...m, versao: m.versao + "b" });
    };
    const b = await abrir(nome, { ctx, srv });
    await pronto(b.pg, b.w);
    const mb = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.notEqual(mb.worker, ma.worker, "a versão nova conversou com o worker da versão antiga");
    assert.equal(mb.reutilizado, false);
    // o localStorage guardava a versão antiga: o worker criado cedo fechou, e outro abriu
    assert.equal(mb.antecipado, false, "a página adotou o worker da versão antiga");
    assert.equal(mb.memoria, "sem", "a memória do Python da versão antiga foi restaurada na nova");
    assert.equal(mb.bytes.cache, mb.bytes.total, "os arquivos iguais deviam vir do Cache API");
    await b.pg.close();
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

// Num Worker comum, a primeira carga de uma página guarda a memória do Python (e o runtime
// descomprimido); `estragar(arg)`, rodado nessa página, estraga algo no cache e devolve uma marca.
// A carga seguinte da mesma página vai a `conferir({ pg, w, m, build, marca })`: `m` são as
// medidas dela, `build` o texto da saída antes do Python (o do build).
async function segundaCargaComCacheEstragado(estragar, arg, conferir) {
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const pagina = nomeDe(umaPagina());
    const a = await abrir(pagina, { ctx });
    await pronto(a.pg, a.w);
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    const marca = await a.pg.evaluate(estragar, arg);
    await a.pg.close();
    const b = await abrir(pagina, { ctx });
    const build = await textoSaida(b.w);
    await pronto(b.pg, b.w);
    const m = await b.pg.evaluate(() => globalThis.livroWidgets.medidas);
    await conferir({ ...b, m, build, marca });
    semErrosNossos(b.erros);
    await b.pg.close();
  } finally {
    await ctx.close();
  }
}

// A memória do Python guardada (o instantâneo) estragada de dois jeitos: todos os bytes
// trocados (o cabeçalho já não confere) ou só o meio zerado (o cabeçalho confere, o Python não).
const memoriaEstragada = (jeito) => segundaCargaComCacheEstragado(async (jeito) => {
  const c = await caches.open("livro-runtime");
  const k = (await c.keys()).find((r) => r.url.includes("/pyodide/memoria?v="));
  const bytes = new Uint8Array(await (await c.match(k)).arrayBuffer());
  const ultimo = bytes[bytes.length - 1];
  if (jeito === "tudo") bytes.fill(0xab);
  else bytes.fill(0, Math.floor(bytes.length / 4), Math.floor((3 * bytes.length) / 4));
  bytes[bytes.length - 1] = ultimo ^ 0xff; // a marca: o último byte de uma memória boa é outro
  await c.put(k, new Response(bytes));
  return bytes[bytes.length - 1];
}, jeito, async ({ pg, w, m, build, marca }) => {
  assert.equal(m.memoria, "sem", "a memória estragada foi usada");
  assert.equal(await textoSaida(w), build, "depois da memória estragada, o Python discorda do build");
  // a estragada foi apagada e outra, guardada: a próxima carga volta a ser rápida
  const valida = await memoriaGuardada(pg, marca);
  assert.ok(valida > 1e6, "o worker não guardou outra memória no lugar da estragada");
});

// O runtime descomprimido guardado (o .wasm, o pyodide.asm.js ou a biblioteca padrão) com os
// bytes trocados, no tamanho certo (o hash não confere): a carga recomeça dos pedaços de gzip,
// responde como o build e guarda um runtime bom no lugar.
const cruEstragado = (nome) => segundaCargaComCacheEstragado(async (nome) => {
  const c = await caches.open("livro-runtime");
  const k = (await c.keys()).find((r) => r.url.includes(`/pyodide/cru/${nome}?v=`));
  const bytes = new Uint8Array(await (await c.match(k)).arrayBuffer());
  bytes.fill(0xab);
  await c.put(k, new Response(bytes));
  return bytes.length;
}, nome, async ({ pg, w, m, build, marca }) => {
  assert.ok(marca > 1e5, `o worker não guardou o ${nome} descomprimido`);
  assert.equal(m.runtime, "pedaços", `o ${nome} estragado foi usado`);
  assert.equal(m.bytes.rede, 0, "recomeçar dos pedaços não devia baixar nada");
  assert.equal(await textoSaida(w), build, `depois do ${nome} estragado, o Python discorda do build`);
  // um runtime bom no lugar do estragado (e a memória: a seguinte volta a ser rápida)
  assert.ok(await memoriaGuardada(pg) > 1e6, "o worker não guardou outra memória");
  const primeiro = await pg.evaluate(async (nome) => {
    const c = await caches.open("livro-runtime");
    const k = (await c.keys()).find((r) => r.url.includes(`/pyodide/cru/${nome}?v=`));
    return k ? new Uint8Array(await (await c.match(k)).arrayBuffer())[0] : null;
  }, nome);
  assert.notEqual(primeiro, 0xab, `o ${nome} estragado ficou no cache`);
  assert.notEqual(primeiro, null, `o worker não guardou outro ${nome}`);
});

test("runtime descomprimido guardado com o .wasm estragado: recomeça dos pedaços e responde certo", () =>
  cruEstragado("wasm"));

test("runtime descomprimido guardado com o pyodide.asm.js estragado: recomeça dos pedaços e responde certo", () =>
  cruEstragado("asm"));

test("runtime descomprimido guardado com a biblioteca padrão estragada: recomeça dos pedaços e responde certo", () =>
  cruEstragado("stdlib"));

test("memória do Python guardada com todos os bytes trocados: inicia do jeito normal, responde certo e guarda outra", () =>
  memoriaEstragada("tudo"));

test("memória do Python guardada com o meio zerado (o cabeçalho confere): inicia do jeito normal e responde certo", () =>
  memoriaEstragada("meio"));

test("com o manifesto guardado, o worker começa a carga quando nasce, antes do iniciar da página", async () => {
  // Uma primeira página guarda o runtime descomprimido, o manifesto e a memória; um Worker
  // comum novo dessa versão carrega sozinho, sem mandar nada a ninguém. O "iniciar" mandado
  // 3 s depois recebe o "pronto" dessa carga (não um Python "já carregado de outra página").
  const ctx = await navegador.newContext();
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript(() => { globalThis.LIVRO_WIDGETS = { compartilhado: false }; });
    const nome = [...paginas.keys()][0];
    const a = await abrir(nome, { ctx });
    await pronto(a.pg, a.w);
    assert.ok(await memoriaGuardada(a.pg) > 1e6, "o worker não guardou a memória do Python");
    const r = await a.pg.evaluate(async () => {
      const url = (c) => new URL((document.documentElement.dataset.content_root || "") + "_static/" + c, location.href);
      const m = await (await fetch(url("pyodide/manifesto.json"), { cache: "no-cache" })).json();
      const c = await caches.open("livro-runtime");
      const guardado = Boolean(await c.match(url(`pyodide/cru/manifesto?v=${m.versao}`).href));
      const w = new Worker(url(`widgets/worker.mjs?v=${m.versao}`), { type: "module" });
      const msgs = [];
      let fim;
      const chegou = new Promise((ok) => { fim = ok; });
      w.onmessage = ({ data }) => { msgs.push(data); if (data.tipo === "pronto" || data.tipo === "falhou") fim(data); };
      await new Promise((ok) => setTimeout(ok, 3000));
      const antes = msgs.length;
      w.postMessage({ tipo: "iniciar", widgets: [], manifesto: m });
      const p = await chegou;
      w.terminate();
      return { guardado, antes, p };
    });
    assert.equal(r.guardado, true, "o manifesto não foi guardado com o runtime");
    assert.equal(r.antes, 0, "o worker mandou mensagens antes de alguém pedir");
    assert.equal(r.p.tipo, "pronto", r.p.mensagem);
    assert.equal(r.p.sozinho, true, "o worker esperou o iniciar");
    assert.ok(r.p.fases.pedido < r.p.iniciarEm, `a carga começou em ${r.p.fases.pedido} ms, depois do iniciar (${r.p.iniciarEm} ms)`);
    assert.equal(r.p.reutilizado, false);
    assert.equal(r.p.memoria, "usado");
    assert.equal(r.p.runtime, "descomprimido");
    semErrosNossos(a.erros);
  } finally {
    await ctx.close();
  }
});

test("localStorage com a versão mas sem o runtime guardado (o leitor limpou o cache): o worker do <head> fecha sem buscar nada", async () => {
  // partida.js cria o worker já com a versão do localStorage; sem o runtime no Cache API, ele não
  // pode começar a baixar 4 MB por um widget que o leitor ainda não viu.
  const versao = JSON.parse(readFileSync(join(HTML, "_static", "pyodide", "manifesto.json"), "utf8")).versao;
  const [pagina, nome] = [...new Map([...paginas.entries()].map(([n, p]) => [p, n]))]
    .find(([p]) => p !== umaPagina()) || [umaPagina(), nomeDe(umaPagina())];
  const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await bloquearRede(ctx, bloqueados);
    await ctx.addInitScript((v) => { try { localStorage.setItem("livro-runtime-versao", v); } catch { /* about:blank */ } }, versao);
    const pyodide = [];
    const workers = [];
    ctx.on("request", (r) => {
      if (r.url().includes("/_static/pyodide/") && !r.url().includes("manifesto.json")) pyodide.push(r.url());
      if (r.url().includes("/widgets/worker.mjs")) workers.push(r.url());
    });
    const pg = await ctx.newPage();
    await pg.goto(servidor.url + pagina);
    await pg.waitForTimeout(1500);
    assert.ok(workers.some((u) => u.includes(`v=${versao}`)), "o <head> não criou o worker com a versão do localStorage");
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "parado");
    assert.equal(await pg.evaluate(() => globalThis.livroPartida), null, "a partida do <head> seguiu sem runtime guardado");
    const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
    const longe = await w.evaluate((el) => el.getBoundingClientRect().top - innerHeight - 600 > 0);
    if (longe) assert.deepEqual(pyodide, [], "baixou o Pyodide sem o widget na tela");
    await rolarAte(w);
    await pg.waitForFunction(() => globalThis.livroWidgets.estado() === "pronto", null, { timeout: ESPERA });
    const m = await pg.evaluate(() => globalThis.livroWidgets.medidas);
    assert.equal(m.antecipado, false, "a página adotou o worker que o <head> abriu sem runtime");
    assert.equal(m.partida, "widgets.js");
  } finally {
    await ctx.close();
  }
});

test("widget longe da tela: o Python só carrega quando o widget aparece (mesmo numa seção ainda sem desenho)", async () => {
  // Cache vazio: sem runtime guardado, a página não pode baixar 4 MB por um widget que o
  // leitor ainda não viu. Vale para toda página cujo widget começa longe da primeira tela.
  let longe = 0;
  const umaPorPagina = new Map([...paginas.entries()].reverse().map(([nome, pagina]) => [pagina, nome]));
  for (const [pagina, nome] of umaPorPagina) {
    const ctx = await navegador.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await bloquearRede(ctx, bloqueados);
      const pyodide = [];
      ctx.on("request", (r) => { if (r.url().includes("/_static/pyodide/")) pyodide.push(r.url()); });
      const pg = await ctx.newPage();
      await pg.goto(servidor.url + pagina);
      await pg.waitForTimeout(1500);
      const w = pg.locator(`.livro-widget[data-widget="${nome}"]`).first();
      // longe: além da tela e da margem em que o Python começa (300 px), com folga
      const topo = await w.evaluate((el) => el.getBoundingClientRect().top - innerHeight - 600);
      if (topo <= 0) continue;
      longe++;
      assert.equal(await pg.evaluate(() => globalThis.livroWidgets.estado()), "parado", `${pagina}: começou sem o widget na tela`);
      assert.deepEqual(pyodide, [], `${pagina}: baixou o Pyodide sem o widget na tela`);
      await rolarAte(w);
      await pg.waitForFunction(() => globalThis.livroWidgets.estado() === "pronto", null, { timeout: ESPERA });
    } finally {
      await ctx.close();
    }
  }
  assert.ok(longe >= 3, `só ${longe} páginas com o widget longe do topo: o teste não prova nada`);
});
