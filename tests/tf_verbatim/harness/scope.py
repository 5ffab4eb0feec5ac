"""Which test methods are out of scope, decided from each method's own source in the test file.

A method is out of scope when its body (decorators aside: ``run_in_graph_and_eager_modes`` puts
a graph method in scope, and a decorator's wrapper would name modes the body never uses) uses
eager execution, tf.function, XLA, control flow v2 or TF's C++-only internals. The source is
read from the file's syntax tree, so the decision is the same whether the file runs under
TensorFlow or devlab. A parameterized method (``testFoo_1``, ``testFoo_v2``) is its ``testFoo``.
"""
import ast
import functools
import re

EXCLUSIONS = [
    ("eager", re.compile(r"^\S*[Ee]ager|eager_mode|EagerTensor|GradientTape|\.numpy\(\)|context\.context\(\)")),
    ("tf.function", re.compile(r"def_function|eager_function|polymorphic_function|wrap_function|"
                               r"\bDefun\b|@function\.|function\.defun|tf_function|ConcreteFunction|"
                               r"^test\w*_function\n")),  # build_as_function_and_v1_graph's tf.function variant
    ("XLA", re.compile(r"[Xx][Ll][Aa]\b|xla_|jit_scope|[Xx]la[A-Z]")),
    ("control flow v2", re.compile(r"while_v2|cond_v2|control_flow_v2|ControlFlowV2|[Cc]ontrol[Ff]low[Vv]2|"
                                   r"output_all_intermediates|enable_control_flow_v2")),
    ("C++ internals", re.compile(r"\btest_ops\.|c_api|pywrap|_c_op\b|_create_c_op|_test_metrics|"
                                 r"checkpoint_management\.|py_checkpoint_reader|saved_model")),
]


@functools.lru_cache(maxsize=None)
def _classes(path):
    """{class name: (base names, {method name: source without decorators})} of the file."""
    text = open(path).read()
    out = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            methods = {f.name: ast.get_source_segment(text, f) for f in node.body
                       if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                     for b in node.bases]
            out[node.name] = (bases, methods)
    return out


def method_source(path, method_id):
    """The body of ``Class.method`` as written in the file (searching its bases in the same
    file); "" when the file does not define it (TF's test_util does)."""
    class_name, _, method = method_id.partition(".")
    classes = _classes(path)
    seen, todo = set(), [class_name]
    while todo:
        name = todo.pop(0)
        if name in seen or name not in classes:
            continue
        seen.add(name)
        bases, methods = classes[name]
        if method in methods:
            return methods[method]
        prefixes = [m for m in methods if method.startswith(m + "_")]
        if prefixes:
            return methods[max(prefixes, key=len)]
        todo += bases
    return ""


def scope_reason(path, method_id):
    """"" when the method is in scope, else the reason it is not (eager, tf.function, ...)."""
    source = method_id.partition(".")[2] + "\n" + method_source(path, method_id)
    for reason, pattern in EXCLUSIONS:
        if pattern.search(source):
            return reason
    return ""
