// Os widgets no site construído, num Chromium sem rede (só 127.0.0.1): cada widget carrega o
// Python, responde igual ao CPython (tests/navegador/esperado.py), trata entrada ruim com
// mensagem, funciona no teclado; nenhum erro de JavaScript nosso no console. Precisa do site
// pronto (make book; ou LIVRO_HTML=pasta). O preparo comum: widgets_comum.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  HTML, navegador, paginas, bloqueados, ref, abrir, pronto, sossegar, textoSaida, confere, vigiarTema,
  nRespostas, comWidget, servidor, servir, bloquearRede, rolarAte,
  umaPagina, nomeDe, LENTA,
} from "./widgets_comum.mjs";

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

test("bloco: Voltar desligado na linha 1, Avançar e Mostrar tudo na última; «Recomeçar» sai de um passo impossível com letras na grade", async () => {
  await comWidget("bloco", async (pg, w) => {
    const desligado = (a) => w.locator(`[data-acao=${a}]`).isDisabled();
    const inicial = await textoSaida(w);
    assert.deepEqual([await desligado("voltar"), await desligado("avancar"), await desligado("tudo")], [true, false, false]);
    await w.locator("[data-acao=tudo]").click();
    await sossegar(w);
    assert.deepEqual([await desligado("voltar"), await desligado("avancar"), await desligado("tudo")], [false, true, true]);
    // um passo impossível (o campo escondido estragado) e uma letra na grade: erro
    await w.locator("[name=passo]").evaluate((el) => { el.value = "99"; });
    await w.locator("[name=x11]").fill("a");
    await sossegar(w);
    assert.equal(await w.locator(".lw-erro").isVisible(), true);
    // «Recomeçar» volta ao estado inicial: a grade, a linha 1, sem erro
    await w.locator("[data-acao=recomecar]").click();
    await sossegar(w);
    assert.equal(await w.locator(".lw-erro").isVisible(), false, await w.locator(".lw-erro").textContent());
    assert.equal(await textoSaida(w), inicial);
    assert.equal(await w.locator("[name=x11]").inputValue(), "-1");
    assert.equal(await w.locator("[name=passo]").inputValue(), "1");
    assert.deepEqual([await desligado("voltar"), await desligado("avancar")], [true, false]);
  });
});

test("tokens: uma frase colada com os acentos decompostos (NFD, de um PDF ou de um Mac) acha os mesmos tokens", async () => {
  await comWidget("tokens", async (pg, w) => {
    const nfd = "o sofá subiu no".normalize("NFD");
    await w.locator("[name=texto]").fill(nfd);
    assert.equal(await w.locator("[name=texto]").inputValue(), nfd, "o campo compôs o texto antes do Python");
    await sossegar(w);
    assert.equal(await w.locator(".lw-erro").isVisible(), false, await w.locator(".lw-erro").textContent());
    const fichas = await w.locator(".lw-token-texto").allTextContents();
    assert.ok(fichas.includes("␣sofá"), fichas.join(" "));
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
    assert.match(status, /continua daí/);
    assert.doesNotMatch(status, /application\/wasm|Recarregue/);
    // Sem Python, os números do build ficam; os controles seguem ativos, e «Tentar de novo» aparece.
    assert.equal(await w.locator("form button, form input").first().isDisabled(), false);
    assert.equal(await w.locator(".lw-tentar").isVisible(), true);
    // Com a rede de volta, «Tentar de novo» carrega: o worker compartilhado da falha de rede
    // seguiu vivo e recomeça a carga (uma falha de rede não o fecha).
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.compartilhado), true);
    pendurar.length = 0;
    await w.locator(".lw-tentar").click();
    await pronto(pg, w);
    assert.equal(await w.locator(".lw-tentar").isVisible(), false);
    assert.equal(await pg.evaluate(() => globalThis.livroWidgets.medidas.reutilizado), false);
  } finally {
    await ctx.close();
    await srv.fechar();
  }
});

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
