"""Os widgets do livro: o que cada um mostra, calculado pelo brinquedo.

Este arquivo não refaz conta nenhuma do modelo: chama `livro.brinquedo` (e
`livro.arquitetura`) e só transforma os resultados em HTML, com os números
formatados por `livro.formato`. Ele roda em dois lugares, com o mesmo código:

- na construção do livro: a diretiva ``{widget} nome`` chama `widget_html(nome)`, e a página
  já sai com os números (quem lê sem JavaScript vê o widget parado, mas certo);
- no navegador: o worker do Pyodide chama `responder_json(pedido)` a cada
  mudança de um controle e devolve o HTML novo.

Um pedido é ``{"widget": nome, "campos": {nome: valor}, "acao": str | None,
"inst": id}``; a resposta é ``{"html", "campos", "desligar"[, "rotulos"]}`` ou
``{"erro"}``, com a mensagem em português (texto puro). "rotulos" troca o texto de
um botão desligado para dizer por que ele parou. Nada aqui pode derrubar a página: toda exceção
vira uma mensagem.
"""
import importlib
import json
import re

from livro import brinquedo as b
from livro.widgets import CLASSE
from livro.widgets.campos import ErroEntrada
from livro.widgets.html import escapa

# nome -> (título, módulo que calcula). O módulo só é importado quando um widget dele é usado.
WIDGETS = {
    "tokens": ("Tokenize uma frase", "passos"),
    "embeddings": ("Monte uma linha de X", "passos"),
    "qkv": ("Uma linha pela LN e pelas projeções", "passos"),
    "mascaras": ("A máscara e as duas cabeças", "passos"),
    "bloco": ("O bloco, linha a linha", "passos"),
    "saida": (f"As {b.V} probabilidades, com e sem atenção", "geracao"),
    "proximo": ("Escolher, anexar, rodar de novo", "geracao"),
    "config-bloco": ("Configure o bloco", "escala"),
    "compute": ("Reparta a computação", "escala"),
    "treino": ("Treine o brinquedo", "treino"),
    "lista": ("A sua lista de exercícios", "lista"),
    "entrega": ("Entregar a lista", "lista"),
}


# Um exercício conferido é o widget `exercicio:<id>` (livro/widgets/exercicio.py, livro/exercicios).
PREFIXO_EXERCICIO = "exercicio:"


def exercicio_de(nome):
    """'exercicio:tokens-1' -> 'tokens-1' (um exercício conhecido), senão None."""
    if not isinstance(nome, str) or not nome.startswith(PREFIXO_EXERCICIO):
        return None
    from livro.exercicios import EXERCICIOS
    id_ = nome[len(PREFIXO_EXERCICIO):]
    return id_ if id_ in EXERCICIOS else None


def conhecido(nome):
    """Um nome de widget que a diretiva e o navegador aceitam."""
    return (isinstance(nome, str) and nome in WIDGETS) or exercicio_de(nome) is not None


def funcoes(nome):
    """(padrão, formulário, cálculo) do widget, importando o módulo dele na primeira vez."""
    if exercicio_de(nome) is not None:
        return importlib.import_module("livro.widgets.exercicio").REGISTRO["exercicio"]
    return importlib.import_module(f"livro.widgets.{WIDGETS[nome][1]}").REGISTRO[nome]


def importar_todos():
    """Importa já os módulos de todos os widgets. O worker do navegador chama isto antes de
    guardar a memória do Python: a página seguinte os recebe importados."""
    for modulo in sorted({m for _, m in WIDGETS.values()} | {"exercicio"}):
        importlib.import_module(f"livro.widgets.{modulo}")


def _curta(msg):
    """Uma mensagem que cita a entrada do leitor não repete 5.000 caracteres dela: cada trecho
    entre aspas ("…" ou «…») fica com 40 caracteres no máximo. As aspas se casam da esquerda
    para a direita, então "a", "b" são dois trechos, nunca um só."""
    def encurta(t):
        return t[:40] + "…" if len(t) > 41 else t
    msg = re.sub(r'"([^"]*)"', lambda m: '"' + encurta(m.group(1)) + '"', msg)
    return re.sub(r"«([^»]*)»", lambda m: "«" + encurta(m.group(1)) + "»", msg)


def responder(pedido):
    """Um pedido do widget -> {"html", "campos", "desligar"} ou {"erro"}.

    A mensagem de "erro" é texto puro em português (a página a mostra com textContent);
    nunca traz o nome de uma exceção nem um traceback."""
    try:
        if not isinstance(pedido, dict):
            raise ErroEntrada("Pedido ilegível.")
        nome = pedido.get("widget")
        if not conhecido(nome):
            raise ErroEntrada("Widget desconhecido.")
        padrao, _, calcula = funcoes(nome)
        enviados = pedido.get("campos") or {}
        if not isinstance(enviados, dict):
            raise ErroEntrada("Pedido ilegível.")
        campos = padrao()
        # Só os campos que o widget tem; cada valor chega como texto, número ou marca.
        for k, v in enviados.items():
            if k in campos:
                campos[k] = v if isinstance(v, (str, bool, int, float)) or v is None else str(v)
        acao = pedido.get("acao") or None
        if acao is not None and not isinstance(acao, str):
            raise ErroEntrada("Ação desconhecida.")
        if exercicio_de(nome) is not None:
            campos["id"] = exercicio_de(nome)   # o exercício vem do nome, nunca de um campo
        inst = pedido.get("inst")
        saida, campos, desligar, *rotulos = calcula(campos, acao, inst if isinstance(inst, str) else None)
        r = {"html": saida, "campos": campos, "desligar": desligar}
        if rotulos and rotulos[0]:
            r["rotulos"] = rotulos[0]  # ação -> texto do botão enquanto ele está desligado (diz por quê)
        return r
    except ValueError as e:  # ErroEntrada, ErroToken e as mensagens de valida_config
        return {"erro": _curta(str(e))}
    except (OverflowError, ZeroDivisionError):
        return {"erro": "Números grandes ou pequenos demais para as contas do brinquedo: "
                        "experimente valores mais perto de 1."}
    except Exception:  # um erro do widget não pode derrubar a página, nem mostrar Python ao leitor
        return {"erro": "O widget não conseguiu calcular com estes valores. Experimente outros, "
                        "ou recarregue a página."}


def responder_json(texto):
    """A porta do worker: JSON de entrada, JSON de saída."""
    try:
        pedido = json.loads(texto)
    except ValueError:
        return json.dumps({"erro": "Pedido ilegível."})
    return json.dumps(responder(pedido), ensure_ascii=False)


def id_do_widget(nome, vez=1):
    """O id do contêiner de um widget na página: `widget-NOME`, e `widget-NOME-2` para o 2º widget
    com o mesmo nome na mesma página (a diretiva do build, a trava rápida e dev/mutacoes.py)."""
    return f"widget-{nome.replace(':', '-')}" + (f"-{vez}" if vez > 1 else "")


def widget_html(nome, inst):
    """O widget inteiro como a página o mostra no build (controles + números)."""
    if exercicio_de(nome) is not None:
        return importlib.import_module("livro.widgets.exercicio").html(exercicio_de(nome), inst)
    if nome not in WIDGETS:
        raise KeyError(f"widget desconhecido: {nome!r} (conhecidos: {', '.join(WIDGETS)})")
    titulo, modulo = WIDGETS[nome]
    mod = importlib.import_module(f"livro.widgets.{modulo}")
    if hasattr(mod, "html_de"):  # um widget com a casca própria (a lista de quem ensina)
        return mod.html_de(nome, inst)
    padrao, form, calcula = funcoes(nome)
    saida, campos, *_ = calcula(padrao(), None, None)  # no build, um erro aqui derruba o build
    return (f'<div class="{CLASSE}" data-widget="{escapa(nome)}" id="{escapa(inst)}">'
            f'<p class="lw-titulo">Experimente · {titulo}</p>'
            f'<form class="lw-form" autocomplete="off" novalidate>{form(campos)}</form>'
            f'<p class="lw-status" role="status">Números calculados na construção do livro. '
            f"Com JavaScript, o Python do navegador assume os controles.</p>"
            f'<p class="lw-erro" role="alert" hidden></p>'
            # tabindex: a saída rola de lado no celular, e o teclado também precisa rolá-la
            f'<div class="lw-saida" aria-live="polite" tabindex="0" role="region" '
            f'aria-label="Resultado: {escapa(titulo)}">{saida}</div></div>')
