// The coupons module's public face: other modules and the processes import only what is listed here.
export { claimCouponForOrder, releaseCouponOfOrder } from './coupon-usage.ts';
export { registerCouponRoutes } from './coupons.routes.ts';
export {
  CouponError,
  type CouponRow,
  type CouponScope,
  findCoupon,
  findUsableCoupon,
  usableCoupon,
  type UsableCoupon,
} from './coupons.service.ts';
