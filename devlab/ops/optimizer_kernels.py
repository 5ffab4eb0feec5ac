"""Update kernels of the adaptive optimizers (RMSProp, Adagrad, Adadelta, Ftrl), as TensorFlow's
``training_ops`` functors compute them. Each takes its variable and slots by reference, checks
the shapes in TF's words (``kernels._scalar``, ``kernels._same_shape``), and writes new buffers
(an update never changes an array a fetch may still hold). ``ApplyGradientDescent``,
``ApplyMomentum`` and ``ApplyAdam`` are in ``kernels.py``."""
from .kernels import _same_shape, _scalar


def _check(var, slots, scalars, grad):
    for name, slot in slots:
        _same_shape(var, name, slot)
    for name, x in scalars:
        _scalar(name, x)
    _same_shape(var, "grad", grad)


def apply_rms_prop(k, var, ms, mom, lr, rho, momentum, epsilon, grad):
    """ms += (grad² - ms)(1 - rho); mom = mom·momentum + lr·grad / sqrt(ms + epsilon); var -= mom."""
    xp, v, old_ms, old_mom = k.xp, var.read(), ms.read(), mom.read()
    _check(v, [("ms", old_ms), ("mom", old_mom)], [("lr", lr), ("rho", rho), ("momentum", momentum),
                                                   ("epsilon", epsilon)], grad)
    one = grad.dtype.type(1)
    new_ms = old_ms + (grad * grad - old_ms) * (one - rho)
    new_mom = old_mom * momentum + lr * grad / xp.sqrt(new_ms + epsilon)
    ms.assign(new_ms.astype(v.dtype, copy=False))
    mom.assign(new_mom.astype(v.dtype, copy=False))
    var.assign((v - new_mom).astype(v.dtype, copy=False))
    return var


def apply_centered_rms_prop(k, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    """As RMSProp, the mean square centred by the moving mean gradient mg: the step divides by
    sqrt(ms - mg² + epsilon), an estimate of the gradient's variance."""
    xp, v, old_mg, old_ms, old_mom = k.xp, var.read(), mg.read(), ms.read(), mom.read()
    _check(v, [("mg", old_mg), ("ms", old_ms), ("mom", old_mom)],
           [("lr", lr), ("rho", rho), ("momentum", momentum), ("epsilon", epsilon)], grad)
    one = grad.dtype.type(1)
    new_ms = old_ms + (grad * grad - old_ms) * (one - rho)
    new_mg = old_mg + (grad - old_mg) * (one - rho)
    new_mom = old_mom * momentum + lr * grad / xp.sqrt(new_ms - new_mg * new_mg + epsilon)
    for ref, value in ((ms, new_ms), (mg, new_mg), (mom, new_mom), (var, v - new_mom)):
        ref.assign(value.astype(v.dtype, copy=False))
    return var


def apply_adagrad(k, var, accum, lr, grad):
    """accum += grad²; var -= lr·grad / sqrt(accum)."""
    xp, v, old = k.xp, var.read(), accum.read()
    _check(v, [("accum", old)], [("lr", lr)], grad)
    new_accum = old + grad * grad
    accum.assign(new_accum)
    var.assign((v - lr * grad / xp.sqrt(new_accum)).astype(v.dtype, copy=False))
    return var


def apply_adadelta(k, var, accum, accum_update, lr, rho, epsilon, grad):
    """accum = rho·accum + (1 - rho)·grad²; update = sqrt(accum_update + eps) / sqrt(accum + eps) · grad;
    accum_update = rho·accum_update + (1 - rho)·update²; var -= lr·update."""
    xp, v, old, old_update = k.xp, var.read(), accum.read(), accum_update.read()
    _check(v, [("accum", old), ("accum_update", old_update)], [("lr", lr), ("rho", rho), ("epsilon", epsilon)], grad)
    one = grad.dtype.type(1)
    new_accum = old * rho + grad * grad * (one - rho)
    update = xp.sqrt(old_update + epsilon) / xp.sqrt(new_accum + epsilon) * grad
    accum.assign(new_accum.astype(v.dtype, copy=False))
    accum_update.assign((old_update * rho + update * update * (one - rho)).astype(v.dtype, copy=False))
    var.assign((v - update * lr).astype(v.dtype, copy=False))
    return var


def _ftrl(k, var, accum, linear, grad, lr, l1, l2, lr_power, shrinkage=None):
    """Follow-the-regularized-leader (McMahan et al.): accum sums grad²; linear sums the gradient
    less the change of the per-coordinate step size times var; var is the closed-form minimiser,
    exactly 0 where |linear| <= l1 (L1 makes weights sparse). V2 adds 2·l2_shrinkage·var to the
    gradient that enters linear."""
    xp, v, old, old_linear = k.xp, var.read(), accum.read(), linear.read()
    scalars = [("lr", lr), ("l1 regularization strength", l1), ("l2 regularization strength", l2)]
    if shrinkage is not None:
        scalars.append(("l2 shrinkage regularization strength", shrinkage))
    _check(v, [("accum", old), ("linear", old_linear)], scalars + [("lr_power", lr_power)], grad)
    two = grad.dtype.type(2)
    g = grad if shrinkage is None else grad + two * shrinkage * v
    new_accum = old + grad * grad
    new_linear = old_linear + g - (new_accum ** -lr_power - old ** -lr_power) / lr * v
    quadratic = new_accum ** -lr_power / lr + two * l2
    new_var = xp.where(xp.abs(new_linear) > l1, (xp.sign(new_linear) * l1 - new_linear) / quadratic,
                       grad.dtype.type(0))
    accum.assign(new_accum.astype(v.dtype, copy=False))
    linear.assign(new_linear.astype(v.dtype, copy=False))
    var.assign(new_var.astype(v.dtype, copy=False))
    return var


def apply_ftrl(k, var, accum, linear, grad, lr, l1, l2, lr_power):
    return _ftrl(k, var, accum, linear, grad, lr, l1, l2, lr_power)


def apply_ftrl_v2(k, var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    return _ftrl(k, var, accum, linear, grad, lr, l1, l2, lr_power, shrinkage=l2_shrinkage)


def _proximal(xp, prox_var, step, l1, l2):
    """The proximal step of l1 and l2 regularisation: soft-threshold by step·l1, shrink by 1 + step·l2."""
    shrink = prox_var.dtype.type(1) + step * l2
    if l1 > 0:
        zero = prox_var.dtype.type(0)
        return xp.sign(prox_var) * xp.maximum(xp.abs(prox_var) - step * l1, zero) / shrink
    return prox_var / shrink


def apply_proximal_adagrad(k, var, accum, lr, l1, l2, grad):
    """accum += grad²; step = lr / sqrt(accum); var = prox(var - step·grad)."""
    xp, v, old = k.xp, var.read(), accum.read()
    _check(v, [("accum", old)], [("lr", lr), ("l1 regularization strength", l1),
                                 ("l2 regularization strength", l2)], grad)
    new_accum = old + grad * grad
    step = lr / xp.sqrt(new_accum)
    accum.assign(new_accum)
    var.assign(_proximal(xp, v - grad * step, step, l1, l2).astype(v.dtype, copy=False))
    return var


def apply_proximal_gradient_descent(k, var, alpha, l1, l2, delta):
    """var = prox(var - alpha·delta)."""
    xp, v = k.xp, var.read()
    _check(v, [], [("alpha", alpha), ("l1 regularization strength", l1), ("l2 regularization strength", l2)],
           delta)
    var.assign(_proximal(xp, v - alpha * delta, alpha, l1, l2).astype(v.dtype, copy=False))
    return var
