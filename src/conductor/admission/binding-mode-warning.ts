/**
 * BindingModeWarning: `bindingMode: WaitForFirstConsumer` on a ResourceClass is accepted (it
 * is part of the API, docs/design.md 3.6.7) but late binding is not implemented yet — claims of the
 * class are provisioned as soon as they are scheduled, as with Immediate. Rather than let a
 * manifest silently mean something else, a create or update that sets it is answered with a
 * warning (kubectl prints it) saying so.
 */
import { apiRefs } from '../../apis/index.js';
import { isPlainObject } from '../../machinery/object.js';
import type { AdmissionAttributes, ValidatingPlugin } from '../../apiserver/admission/types.js';

export const WAIT_FOR_FIRST_CONSUMER_WARNING =
  'bindingMode WaitForFirstConsumer is not implemented yet: claims of this class are provisioned as soon as they are scheduled, as with Immediate';

export class BindingModeWarning implements ValidatingPlugin {
  readonly name = 'BindingModeWarning';

  handles(attrs: AdmissionAttributes): boolean {
    return (
      (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE') &&
      attrs.subresource === '' &&
      attrs.rt.group === apiRefs.resourceclasses.group &&
      attrs.rt.resource === apiRefs.resourceclasses.resource
    );
  }

  validate(attrs: AdmissionAttributes): void {
    const object = attrs.object;
    if (isPlainObject(object) && object.bindingMode === 'WaitForFirstConsumer') attrs.ctx.warnings.push(WAIT_FOR_FIRST_CONSUMER_WARNING);
  }
}
